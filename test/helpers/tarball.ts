import { execFile } from 'node:child_process'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { childEnv, ROOT } from './cli.js'

const run = promisify(execFile)

/**
 * A CommonJS project as `npm init -y` makes it (no `"type"`), with the package as users get it:
 * `npm pack` unpacked into node_modules/sendbox. Its dependencies, and `extra` packages (a
 * runner), are linked from this checkout's node_modules instead of installed from the registry
 * (test/pack.test.ts does the real install), so it takes seconds. `--ignore-scripts`: the test
 * setup has just built dist/.
 */
export async function commonJsProjectWithTarball(dir: string, extra: string[]): Promise<string> {
  const packed = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
    {
      cwd: ROOT,
      env: childEnv({ npm_config_update_notifier: 'false' }),
    },
  )
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }]
  const app = join(dir, 'app')
  const installed = join(app, 'node_modules', 'sendbox')
  await mkdir(installed, { recursive: true })
  await run('tar', ['-xzf', join(dir, filename), '-C', installed, '--strip-components=1'])
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>
  }
  for (const name of [...Object.keys(manifest.dependencies), ...extra]) {
    const link = join(app, 'node_modules', name)
    await mkdir(dirname(link), { recursive: true })
    await symlink(join(ROOT, 'node_modules', name), link, 'dir')
  }
  await writeFile(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'app', version: '1.0.0', main: 'index.js', license: 'ISC' }, null, 2)}\n`,
  )
  return app
}
