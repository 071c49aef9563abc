// Typeset TeX to SVG with MathJax 3 in node: reads [[tex, display], ...] as JSON on stdin, writes
// {"css": ..., "svg": [...], "glyphs": {id: "<path .../>", ...}} as JSON on stdout. Argument: the path of MathJax's
// es5/node-main.js. The glyphs are MathJax's global font cache: each formula refers to its glyphs by id
// (<use xlink:href="#MJX-TEX-I-1D465">) instead of carrying their paths, and a page holds each glyph it uses once.
const mathjax = require(process.argv[2]);
let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  mathjax.init({loader: {load: ['input/tex', 'output/svg']}, svg: {fontCache: 'global'}}).then((MathJax) => {
    const adaptor = MathJax.startup.adaptor;
    const svg = JSON.parse(input).map(([tex, display]) => adaptor.outerHTML(MathJax.tex2svg(tex, {display})));
    const css = adaptor.textContent(MathJax.svgStylesheet());
    const glyphs = {};
    for (const path of adaptor.childNodes(MathJax.startup.output.fontCache.getCache())) {
      glyphs[adaptor.getAttribute(path, 'id')] = adaptor.outerHTML(path);
    }
    process.stdout.write(JSON.stringify({css, svg, glyphs}));
  }).catch((error) => { console.error(error.message || error); process.exit(1); });
});
