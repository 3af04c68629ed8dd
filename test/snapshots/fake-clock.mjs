// Preloaded with --import by test/snapshots/: the process's clock reads SENDBOX_FAKE_NOW (an ISO
// time), so a test can run sendbox on another day without waiting for one.
const fake = Date.parse(process.env.SENDBOX_FAKE_NOW ?? '')
if (Number.isFinite(fake)) {
  const offset = fake - Date.now()
  const realNow = Date.now
  Date.now = () => realNow() + offset
}
