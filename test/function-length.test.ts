import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * No function in src/ longer than a screen (60 lines) unless a comment right above it says why
 * (`Long because …`): a long function is split by responsibility, or explains itself. Counted
 * from its first line to its last, nested functions included, as a reader scrolls it.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url))
const SCREEN = 60

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration

const isFunction = (node: ts.Node): node is FunctionNode =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node)

/** The node whose leading comments speak for a function: its declaration statement, or itself. */
function commented(node: ts.Node): ts.Node {
  let at: ts.Node = node
  while (
    at.parent &&
    (ts.isVariableDeclaration(at.parent) ||
      ts.isVariableDeclarationList(at.parent) ||
      ts.isVariableStatement(at.parent) ||
      ts.isPropertyAssignment(at.parent) ||
      ts.isPropertyDeclaration(at.parent) ||
      ts.isExportAssignment(at.parent) ||
      ts.isCallExpression(at.parent))
  )
    at = at.parent
  return at
}

/** `file:line name (n lines)` for each function over a screen with no `Long because` above it. */
export function unexplainedLongFunctions(file: string, text: string): string[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind)
  const found: string[] = []
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1
  const visit = (node: ts.Node) => {
    if (isFunction(node)) {
      const first = line(node.getStart())
      const lines = line(node.getEnd()) - first + 1
      const owner = commented(node)
      const comments = ts.getLeadingCommentRanges(text, owner.getFullStart()) ?? []
      const why = comments.some((c) => /Long because/.test(text.slice(c.pos, c.end)))
      if (lines > SCREEN && !why) found.push(`${relative(SRC, file)}:${first} (${lines} lines)`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('function length', () => {
  it('finds a long function without its reason, and accepts one with it', () => {
    const body = Array.from({ length: 61 }, (_, i) => `  const a${i} = ${i}`).join('\n')
    const long = `export function f() {\n${body}\n}\n`
    expect(unexplainedLongFunctions(join(SRC, 'x.ts'), long)).toEqual(['x.ts:1 (63 lines)'])
    const explained = `/** Long because it is a table. */\n${long}`
    expect(unexplainedLongFunctions(join(SRC, 'x.ts'), explained)).toEqual([])
    const arrow = `// Long because it is a table.\nexport const g = () => {\n${body}\n}\n`
    expect(unexplainedLongFunctions(join(SRC, 'x.ts'), arrow)).toEqual([])
  })

  it('no function in src/ is longer than a screen without a comment that says why', () => {
    const found = sourceFiles(SRC).flatMap((file) =>
      unexplainedLongFunctions(file, readFileSync(file, 'utf8')),
    )
    expect(found).toEqual([])
  })
})
