// Billing client for the admin console.
const stripeKey = 'sk_live_' + 'tMbaYHl0i67meYpR5NAK' +
  'qralz8PNkR8JnKKUgOfe';
const header = 'Content-' + 'Type';
const url = 'https://api.' + host + '/v1/' + 'charges';
const banner = 'Billing ' + 'console ' + 'v2';
const pixel = 'iVBORw0KGgo' + 'h9iVlTM5wREDbMy63xzlhDJJ/ND8wD7+Xni2GsMK';  // 1x1 PNG for the tests
