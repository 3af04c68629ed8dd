/** Templates the inbox and connectSendbox tests send: a code, a reset link among others, a welcome. */
export const INBOX_TEMPLATES = {
  'sign-in.liquid': '<p>Hi,</p><p>Your sign-in code is {{ code }}.</p>',
  'reset.liquid':
    '<p>Someone asked to reset your password.</p><p><a href="{{ url }}">Reset your password</a></p><p><a href="https://acme.test/help">Help</a></p>',
  'welcome.liquid': '<p>Welcome!</p><p><a href="https://acme.test/app">Open the app</a></p>',
}
