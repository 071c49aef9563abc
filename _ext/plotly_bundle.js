// The book's plotly.js: a partial bundle with only the trace types its figures draw (scatter is always in plotly's
// core), built by `make setup` with esbuild from the npm package plotly.js (same version as the plotly pip package's
// plotly.min.js) into assets/plotly.min.js; _ext/plotly_pages.py loads it on the pages that show a figure. A figure
// with another trace type draws nothing and logs an error: tests/test_book.py checks that every trace type the book
// uses is registered here.
var Plotly = require('plotly.js/lib/core');

Plotly.register([
    require('plotly.js/lib/bar'),
    require('plotly.js/lib/heatmap'),
    require('plotly.js/lib/scatter3d'),
]);

module.exports = Plotly;
