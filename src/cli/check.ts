export async function check(_argv: string[], _env: NodeJS.ProcessEnv, _help: boolean): Promise<number> {
  process.stderr.write('sendbox check: not implemented yet\n')
  return 1
}
