// The line a child prints once it is ready, for every bench that starts a server.
/**
 * Resolves with the match of `pattern` in a child's stdout (rejects if it exits first), then
 * reads the rest without keeping it. Kept, a server's request log grew one string per line the
 * bench process re-read for the pattern at every chunk: with a line per send, the bench's own
 * CPU (which is the client's too) went into a send → read round trip, 3.3 ms a send to a new
 * recipient (each line differs, so none is folded into a "repeated" count) against 0.7.
 *
 * @example
 * const { match } = await readyLine(child, /sendbox ready (\S+)/, 'serve')
 */
export function readyLine(child, pattern, name) {
  return new Promise((resolve, reject) => {
    let out = ''
    const read = (d) => {
      out += d
      const match = pattern.exec(out)
      if (!match) return
      child.stdout.off('data', read)
      child.stdout.resume()
      resolve({ match })
    }
    child.stdout.on('data', read)
    child.on('exit', (code) => reject(new Error(`${name} exited ${code}\n${out}`)))
  })
}
