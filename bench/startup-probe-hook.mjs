// Module hook of bench/startup-probe.mjs: tells the main thread each URL loaded.
let port
export function initialize(data) {
  port = data.port
}
export async function load(url, context, next) {
  port.postMessage(url)
  return next(url, context)
}
