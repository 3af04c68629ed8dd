// One adversarial message checked in this process (bench/check-adversarial.js runs it): its
// checks' CPU time, and how far the resident memory peaked above what it was before, as JSON.
//
//   node bench/check-adversarial-one.js <bundled checks> <shape> <n>
import { pathToFileURL } from 'node:url'

const [file, shape, n] = process.argv.slice(2)
const { checkEmail, ADVERSARIAL, adversarialEmail } = await import(pathToFileURL(file).href)
// Loads the checks and the client support data, which every message after shares.
await checkEmail({ html: '<p>warm</p>', text: 'warm' })
const html = adversarialEmail(ADVERSARIAL[shape](Number(n)))
const rss = process.memoryUsage().rss
const t0 = process.cpuUsage()
const report = await checkEmail({ html, text: 'An adversarial message, checked as any other.' })
const { user, system } = process.cpuUsage(t0)
// maxRSS is in KiB, the most this process has held: above rss, what the check added.
const peakBytes = Math.max(0, process.resourceUsage().maxRSS * 1024 - rss)
console.log(
  JSON.stringify({
    bytes: Buffer.byteLength(html),
    cpuMs: (user + system) / 1000,
    peakBytes,
    findings: report.findings.length,
  }),
)
