import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { parseSpamdReport, spamdRequest } from '../../src/checks/spamd-protocol.js'
import { pingSpamd, scoreWithSpamd, SpamdError } from '../../src/checks/spamd.js'
import { freePort } from '../helpers/free-port.js'

const SPAMC = '/usr/bin/spamc'
// CI installs it (.ci/run, SENDBOX_SPAMD_REQUIRED): there the framing is always compared.
const noSpamc = !existsSync(SPAMC) && !process.env.SENDBOX_SPAMD_REQUIRED

/** A TCP server on a free port that hands each connection to `onConnection`. */
async function fakeSpamd(
  onConnection: (socket: Socket) => void,
): Promise<{ server: Server; port: number }> {
  const server = createServer(onConnection)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as { port: number }).port }
}

/** The bytes a client sent before it half-closed, answered with `answer`. */
function recorder(answer: string) {
  const requests: Buffer[] = []
  return {
    requests,
    handle(socket: Socket) {
      const chunks: Buffer[] = []
      socket.on('data', (chunk) => chunks.push(chunk))
      socket.on('end', () => {
        requests.push(Buffer.concat(chunks))
        socket.end(answer)
      })
      socket.on('error', () => {})
    },
  }
}

const servers: Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

const REPORT = [
  'SPAMD/1.1 0 EX_OK',
  'Content-length: LENGTH',
  'Spam: True ; 6.2 / 5.0',
  '',
  'Content preview:  Buy 0.6 NOT_A_RULE here\n\nContent analysis details:   (6.2 points, 5.0 required)\n\n' +
    ' pts rule name              description\n' +
    '---- ---------------------- --------------------------------------------------\n' +
    '-0.0 NO_RELAYS              Informational: message was not relayed via SMTP\n' +
    ' 1.1 HTML_IMAGE_ONLY_16     BODY: HTML: images with 1200-1600 bytes of\n' +
    '                            words\n' +
    ' 2.7 MISSING_DATE           Missing Date: header\n' +
    ' 2.4 A_VERY_LONG_RULE_NAME_INDEED Über lang\n' +
    '                            [URIs: example.com]\n\n',
].join('\r\n')
const framed = (text: string) => {
  const body = text.slice(text.indexOf('\r\n\r\n') + 4)
  return text.replace('LENGTH', String(Buffer.byteLength(body)))
}

describe('the spamd protocol', () => {
  it.skipIf(noSpamc)('frames a REPORT byte for byte as spamc -u sendbox does', async () => {
    const rec = recorder(framed(REPORT))
    const { server, port } = await fakeSpamd(rec.handle)
    servers.push(server)
    // Bytes spamc sends as they are: CRLF and LF line breaks, 8-bit text, no final line break.
    const message = Buffer.from(
      'Subject: Ünïcode\r\nFrom: a@example.com\n\r\n<p>Hi</p>\r\nlast line',
      'utf8',
    )
    await new Promise<void>((resolve, reject) => {
      const child = execFile(
        SPAMC,
        ['-d', '127.0.0.1', '-p', String(port), '-u', 'sendbox', '-R'],
        (error) => (error && error.code !== 1 ? reject(error) : resolve()),
      )
      child.stdin!.end(message)
    })
    await scoreWithSpamd({ host: '127.0.0.1', port }, message)
    expect(rec.requests).toHaveLength(2)
    expect(rec.requests[1]!.toString('latin1')).toBe(rec.requests[0]!.toString('latin1'))
    expect(rec.requests[1]).toEqual(spamdRequest('REPORT', message))
  })

  it.skipIf(noSpamc)('frames a PING as spamc -K does', async () => {
    const rec = recorder('SPAMD/1.5 0 PONG\r\n')
    const { server, port } = await fakeSpamd(rec.handle)
    servers.push(server)
    await new Promise<void>((resolve, reject) =>
      execFile(SPAMC, ['-d', '127.0.0.1', '-p', String(port), '-K'], (error) =>
        error ? reject(error) : resolve(),
      ),
    )
    expect(await pingSpamd({ host: '127.0.0.1', port })).toBe(true)
    expect(rec.requests[1]).toEqual(rec.requests[0])
  })

  it('reads the score, the threshold and the rules, highest first, descriptions joined', () => {
    expect(parseSpamdReport(Buffer.from(framed(REPORT)))).toEqual({
      score: 6.2,
      threshold: 5,
      isSpam: true,
      rules: [
        { name: 'MISSING_DATE', score: 2.7, description: 'Missing Date: header' },
        { name: 'A_VERY_LONG_RULE_NAME_INDEED', score: 2.4, description: 'Über lang' },
        {
          name: 'HTML_IMAGE_ONLY_16',
          score: 1.1,
          description: 'BODY: HTML: images with 1200-1600 bytes of words',
        },
        {
          name: 'NO_RELAYS',
          score: -0,
          description: 'Informational: message was not relayed via SMTP',
        },
      ],
    })
  })

  it('refuses what is not a whole spamd answer, saying why', () => {
    const bad = (text: string) => () => parseSpamdReport(Buffer.from(text))
    expect(bad('HTTP/1.1 400 Bad Request\r\n\r\n')).toThrow(
      /not spamd's: "HTTP\/1.1 400 Bad Request"/,
    )
    expect(bad('SPAMD/1.0 76 Bad header line: x\r\n\r\n')).toThrow(
      /could not check it: "SPAMD\/1.0 76/,
    )
    expect(
      bad('SPAMD/1.1 0 EX_OK\r\nContent-length: 99\r\nSpam: False ; 1 / 5\r\n\r\nshort'),
    ).toThrow(/cut: Content-length 99, 5 bytes/)
    expect(bad('SPAMD/1.1 0 EX_OK\r\nContent-length: 0\r\n\r\n')).toThrow(/no "Spam: /)
    expect(bad('garbage')).toThrow(/not spamd's/)
  })
})

describe('the spamd client fails clearly, naming host:port', () => {
  const failure = async (port: number, timeoutMs?: number) => {
    const error = await scoreWithSpamd(
      { host: '127.0.0.1', port },
      Buffer.from('Subject: x\r\n\r\nx'),
      {
        ...(timeoutMs ? { timeoutMs } : {}),
      },
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SpamdError)
    return error as SpamdError
  }

  it('refused: nothing listens there', async () => {
    const port = await freePort()
    const error = await failure(port)
    expect(error).toMatchObject({ reason: 'refused', address: `127.0.0.1:${port}` })
    expect(error.message).toBe(`spamd at 127.0.0.1:${port} could not be reached (ECONNREFUSED).`)
  })

  it('timeout: a server that accepts and says nothing (the 10 s default, shortened here)', async () => {
    const { server, port } = await fakeSpamd((socket) => {
      socket.on('error', () => {})
    })
    servers.push(server)
    const started = Date.now()
    const error = await failure(port, 300)
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    expect(error).toMatchObject({
      reason: 'timeout',
      message: `spamd at 127.0.0.1:${port} did not answer within 0.3 s.`,
    })
  })

  it('bad answer: something else speaks there, or it closes without a word', async () => {
    const http = await fakeSpamd(recorder('HTTP/1.1 400 Bad Request\r\n\r\n').handle)
    const silent = await fakeSpamd((socket) => socket.on('error', () => {}).end())
    servers.push(http.server, silent.server)
    expect(await failure(http.port)).toMatchObject({
      reason: 'bad_answer',
      message: `spamd at 127.0.0.1:${http.port}: the answer is not spamd's: "HTTP/1.1 400 Bad Request".`,
    })
    expect((await failure(silent.port)).message).toBe(
      `spamd at 127.0.0.1:${silent.port} closed the connection without an answer.`,
    )
    expect(await pingSpamd({ host: '127.0.0.1', port: http.port })).toBe(false)
  })
})
