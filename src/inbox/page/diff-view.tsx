import { useMemo } from 'preact/hooks'
import { diffLines, diffStat, type DiffLine, readable } from './changes-route.js'

/**
 * A unified diff, as text: each line with its numbers in the snapshot and in the render now,
 * removed lines in `<del>` and added ones in `<ins>`, each also marked `-` or `+` (colour is not
 * the only cue, and a copied diff stays a diff). The numbers are drawn by CSS from attributes:
 * copying the diff copies none. The indentation a hunk's lines share is left out, and the part
 * of a changed line that differs is marked (`readable`).
 *
 * @example
 * <DiffView id="diff-text" title="Text" diff={detail.diff.text} same="The text is the same." />
 */
export function DiffView({
  id,
  title,
  diff,
  same,
}: {
  id: string
  title: string
  diff: string | null
  /** What to say when there is no diff. */
  same: string
}) {
  // The file header (--- and +++) names what the view already says: the snapshot, the render now.
  const lines = useMemo(
    () => (diff ? readable(diffLines(diff).filter((l) => l.kind !== 'header')) : []),
    [diff],
  )
  const { added, removed } = diffStat(lines)
  return (
    <section class="diff-section" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>
        {title}
        {diff ? (
          <span class="diff-stat">
            <span class="diff-added">+{added}</span> <span class="diff-removed">-{removed}</span>
            <span class="visually-hidden">
              : {added} {added === 1 ? 'line' : 'lines'} added, {removed} removed
            </span>
          </span>
        ) : null}
      </h3>
      {diff ? (
        <pre class="code diff" id={id} tabIndex={0} role="region" aria-label={`${title}, diff`}>
          {lines.map((line, i) => (
            <Line key={i} line={line} />
          ))}
        </pre>
      ) : (
        <p class="muted diff-same">{same}</p>
      )}
    </section>
  )
}

function Line({ line }: { line: DiffLine }) {
  const numbers = (
    <>
      <span class="diff-n" data-n={line.before ?? ''} aria-hidden="true" />
      <span class="diff-n" data-n={line.after ?? ''} aria-hidden="true" />
    </>
  )
  switch (line.kind) {
    case 'add':
      return (
        <ins class="diff-line" data-kind="add">
          {numbers}
          <span class="diff-mark">+</span>
          <Text line={line} />
          {'\n'}
        </ins>
      )
    case 'del':
      return (
        <del class="diff-line" data-kind="del">
          {numbers}
          <span class="diff-mark">-</span>
          <Text line={line} />
          {'\n'}
        </del>
      )
    case 'same':
      return (
        <span class="diff-line" data-kind="same">
          {numbers}
          <span class="diff-mark"> </span>
          {line.text}
          {'\n'}
        </span>
      )
    default:
      return (
        <span class="diff-line" data-kind={line.kind}>
          {line.text}
          {'\n'}
        </span>
      )
  }
}

/** A line's text, the part that differs from its pair (if it has one) in a `<mark>`. */
function Text({ line }: { line: DiffLine }) {
  if (!line.changed) return <>{line.text}</>
  const [start, end] = line.changed
  return (
    <>
      {line.text.slice(0, start)}
      <mark class="diff-change">{line.text.slice(start, end)}</mark>
      {line.text.slice(end)}
    </>
  )
}
