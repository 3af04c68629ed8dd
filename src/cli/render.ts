export async function render(_argv: string[], _env: NodeJS.ProcessEnv, _help: boolean): Promise<number> {
  process.stderr.write('sendbox render: not implemented yet\n')
  return 1
}
