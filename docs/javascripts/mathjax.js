// MathJax 3, served from the site itself (assets/mathjax, copied at build time from the
// django-static-mathjax wheel by docs/_scripts/hooks.py): no network needed to read the equations.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    // pages: the arithmatex spans; notebooks: their markdown cells (which write $...$)
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex|jp-RenderedMarkdown",
  },
  startup: {
    pageReady: () => {
      for (const el of document.querySelectorAll(".jp-RenderedMarkdown")) {
        el.innerHTML = el.innerHTML.replace(/\$([^$]+?)\$/g, "\\($1\\)");
      }
      return MathJax.startup.defaultPageReady();
    },
  },
};

if (typeof document$ !== "undefined") {
  document$.subscribe(() => {
    if (window.MathJax && MathJax.typesetPromise) {
      MathJax.startup.output.clearCache();
      MathJax.typesetClear();
      MathJax.texReset();
      MathJax.typesetPromise();
    }
  });
}
