import type { H3 } from 'h3'
import type { AppContext } from '../server/context.js'
import { route } from '../server/routes.js'

export function registerInboxRoutes(app: H3, ctx: AppContext): void {
  void ctx
  route(app, '/_sandbox/', {
    GET: () => new Response('<!doctype html><title>sendbox</title><h1>sendbox inbox</h1>', { headers: { 'content-type': 'text/html; charset=utf-8' } }),
  })
}
