import { Component, type ComponentType, type FunctionComponent, h } from 'preact'

/**
 * A component that renders again only when one of its props changed (compared with ===), as
 * React's memo. preact/compat has one, but importing compat also turns on React's event rules
 * for the whole page (an input's `onChange` fires on every keystroke).
 *
 * @example
 * const Row = memo(function Row({ id, status }: RowProps) { … })
 */
export function memo<P extends object>(render: FunctionComponent<P>): ComponentType<P> {
  class Memo extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      const now = this.props as Record<string, unknown>
      const then = next as Record<string, unknown>
      for (const key in then) if (then[key] !== now[key]) return true
      for (const key in now) if (!(key in then)) return true
      return false
    }
    override render(props: P) {
      return h(render, props)
    }
  }
  return Memo as ComponentType<P>
}
