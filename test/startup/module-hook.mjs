// Module customization hook for record-modules.mjs: report each loaded URL to the main thread.
let port
export function initialize(data) {
  port = data.port
}
export async function load(url, context, next) {
  port.postMessage(url)
  return next(url, context)
}
