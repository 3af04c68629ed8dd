import path from 'node:path'

/**
 * A file as a person at this process's working directory names it, with `/` separators: what
 * `sendbox check` prints and the inbox shows, so an editor or a terminal can open it from there.
 *
 * @example
 * shownPath('/home/ada/app/templates/welcome.liquid') // 'templates/welcome.liquid' (cwd /home/ada/app)
 */
export function shownPath(file: string, cwd = process.cwd()): string {
  return path.relative(cwd, file).split(path.sep).join('/') || '.'
}
