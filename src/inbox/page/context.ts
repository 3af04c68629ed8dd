import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { Page } from './page.js'

/** The page's shared services (page.ts), for any component: `usePage()`. */
export const PageContext = createContext<Page | null>(null)

export function usePage(): Page {
  const page = useContext(PageContext)
  if (!page) throw new Error('usePage() outside <PageContext.Provider>')
  return page
}
