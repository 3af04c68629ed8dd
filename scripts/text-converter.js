// What dist/sendbox-html-to-text.cjs holds (scripts/bundle.js): html-to-text's `compile`, and the
// entity decoders of `entities`, the copy htmlparser2 decodes with, for the tree that
// src/templates/text-dom.ts reads in its place.
export { compile } from 'html-to-text'
export { decodeHTML, decodeHTMLAttribute } from 'entities'
