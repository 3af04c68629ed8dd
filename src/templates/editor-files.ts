import path from 'node:path'

/**
 * Files editors create next to the one being saved: neither the watcher nor the folder state
 * (`./folder-state.js`) counts them.
 *
 * @example
 * isEditorArtifact('/t/.welcome.liquid.swp') // true
 */
export function isEditorArtifact(file: string): boolean {
  const name = path.basename(file)
  return (
    name.startsWith('.') || // hidden files, `.x.swp`, emacs `.#x`, atomic-save temp files
    name.endsWith('~') ||
    name === '4913' ||
    (name.startsWith('#') && name.endsWith('#')) ||
    /\.sw[a-px]$/.test(name) ||
    /___jb_(?:tmp|old)___$/.test(name)
  )
}
