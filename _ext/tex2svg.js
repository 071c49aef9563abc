// Typeset TeX to SVG with MathJax 3 in node: reads [[tex, display], ...] as JSON on stdin, writes
// {"css": ..., "svg": [...]} as JSON on stdout. Argument: the path of MathJax's es5/node-main.js.
const mathjax = require(process.argv[2]);
let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  mathjax.init({loader: {load: ['input/tex', 'output/svg']}, svg: {fontCache: 'local'}}).then((MathJax) => {
    const adaptor = MathJax.startup.adaptor;
    const svg = JSON.parse(input).map(([tex, display]) => adaptor.outerHTML(MathJax.tex2svg(tex, {display})));
    const css = adaptor.textContent(MathJax.svgStylesheet());
    process.stdout.write(JSON.stringify({css, svg}));
  }).catch((error) => { console.error(error.message || error); process.exit(1); });
});
