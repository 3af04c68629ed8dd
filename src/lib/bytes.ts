import bytes from 'bytes'

/** `bytes` counts in 1024s but names its units KB, MB…: say what they are. */
const BINARY_UNITS: Record<string, string> = {
  B: 'bytes',
  KB: 'KiB',
  MB: 'MiB',
  GB: 'GiB',
  TB: 'TiB',
  PB: 'PiB',
}

/**
 * A size as a person reads it, in binary units (at most two decimals).
 *
 * @example
 * formatBytes(1048576) // '1 MiB'
 * formatBytes(524288)  // '512 KiB'
 * formatBytes(1500)    // '1.46 KiB'
 * formatBytes(100)     // '100 bytes'
 */
export function formatBytes(size: number): string {
  const shown = bytes.format(size, { unitSeparator: ' ' })
  if (!shown) return `${size} bytes`
  const [amount, unit = 'B'] = shown.split(' ')
  return `${amount} ${BINARY_UNITS[unit] ?? unit}`
}
