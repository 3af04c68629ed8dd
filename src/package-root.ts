/**
 * The package's root folder. This module sits one level below it in src/, in dist/ and in the
 * bundles (dist/sendbox*.js), so one relative URL serves all three.
 */
export const PACKAGE_ROOT = new URL('../', import.meta.url)
