/**
 * The health route's path, what a CI step's wait-on and the test kit poll: a start answers it
 * with a small app of that route alone until the whole app is in (src/server/deferred-app.ts),
 * which reads this constant without loading the route.
 */
export const HEALTH_PATH = '/_sandbox/api/health'
