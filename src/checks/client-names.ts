/**
 * caniemail's client ids as people say them: `gmail.android` → "Gmail (Android)". The server's
 * messages use these, so every reader (the inbox, `sendbox check`, an API client) gets names.
 */

const FAMILIES: Record<string, string> = {
  'apple-mail': 'Apple Mail',
  gmail: 'Gmail',
  outlook: 'Outlook',
  yahoo: 'Yahoo Mail',
  'samsung-email': 'Samsung Email',
  thunderbird: 'Thunderbird',
  fastmail: 'Fastmail',
}

const PLATFORMS: Record<string, string> = {
  macos: 'macOS',
  ios: 'iOS',
  android: 'Android',
  windows: 'Windows',
  'desktop-webmail': 'webmail',
  'mobile-webmail': 'mobile webmail',
}

function parts(id: string): { family: string; platform: string | null } {
  const [family = id, platform] = id.split('.')
  return {
    family: FAMILIES[family] ?? family,
    platform: platform ? (PLATFORMS[platform] ?? platform) : null,
  }
}

/** `gmail.desktop-webmail` → "Gmail (webmail)"; an unknown id keeps its own words. */
export function clientName(id: string): string {
  const { family, platform } = parts(id)
  return platform ? `${family} (${platform})` : family
}

/** Several clients, each family once: "Gmail (webmail, iOS, Android) and Yahoo Mail (webmail)". */
export function clientList(ids: string[]): string {
  const families = new Map<string, string[]>()
  for (const id of ids) {
    const { family, platform } = parts(id)
    const platforms = families.get(family) ?? []
    if (platform) platforms.push(platform)
    families.set(family, platforms)
  }
  return andList(
    [...families].map(([family, platforms]) =>
      platforms.length ? `${family} (${platforms.join(', ')})` : family,
    ),
  )
}

/** "a", "a and b", "a, b and c". */
export const andList = (items: string[]): string =>
  items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : (items[0] ?? '')
