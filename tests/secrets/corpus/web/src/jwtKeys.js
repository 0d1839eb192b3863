// Keys for signing session JWTs in the e2e environment.
export const privateKey =
  '-----BEGIN RSA PRIVATE KEY-----\n' +
  'KlY2uzz1hU/3QmN2EDmjABHmnru+BSZi02VyaVTbNkFnmW+tc1UxtetHoUwAe2yf\n' +
  '29MTJTQFVti5sS6jsWlznYUGW724gmI9+h1Wtn81tIQAg28EuvCASrOY0/VY/M3A\n' +
  'Jj24svqxqe/KJhBvsK/Dp3p94g9pt1ENnaPqVeyOoqE3mHfky6xWLwM4kh5SD/qD\n' +
  'gVnavFmGienGeM9+HfXi6x4kcHV+Ib2jAC922s6cO3dInLQlq/6SV4A/GNmrI5Dt\n' +
  'hy6nQaMvT4c+qzxjgOJ3a1oLWhdXZKf5uTVjgUr6Wslj8bPJJHU+IlqUch87sifG\n' +
  'EbWjoWZyjSPleoTnMNnRGKFdWPf5HzuUAG8dCoJGWp2QLBbQuOUNf5iYgF3bx8WM\n' +
  'uBIe2Im18JrQg5wrdMrER91gJYPKxYnAde3xY67gtRkyr/SHc2LBBK33gkMb1Lhm\n' +
  '45IYNCi2QtjCzZLMVwsFkqW9w+bk8KHEJ8rZmlPcZyZuGz++Vz0RR335RPaqEAWW\n' +
  'a36ChIlSBQP2nTTnx4PMWmEGKKUfffIRujmfZAmQRRWoTvKnDPIPb7IWxbMh+ct7\n' +
  '2xAO0e/3JCMbqTuzxrG4rReJJ07ToWLgM1Bqqd9lN9EggGaIOqRM9Buo/GV0ycAP\n' +
  'NB9jzQ22p6dMeXUPBI6gMw+AWzqlzARU9oHMQs7miHF5oP2RJaAcCBgm65vUj2lM\n' +
  '/jhFtgocQWeIZJrPYT9CT7bnn4jfioBN2g7Zbm7ka4G/K4IQXxczmaswdJIg5etw\n' +
  'EChZuiiJAyluKZSpOVFE/2WIrPujpfky1Jfxfulq==\n' +
  '-----END RSA PRIVATE KEY-----\n';

export const certificate =
  '-----BEGIN CERTIFICATE-----\n' +
  'bwH4Q1d+4oA93lkPgfYTa2LBTRZCaEt6kwS1y8wNc81pJCj5xm/aEpeC0/oNQCpR\n' +
  'V2RBgsftBZoOhLiSuU4EtMC3vi7ldqrM/QJts23Pu/5btcEuW/iHQObkIClZPg+J\n' +
  'iNTOGmn66ABiV16kK2GVfoBPURKOg9k8gwkBL8QgaDvSskMVxww5vQnduxkymyxj\n' +
  '4LCu81hpkNL8Z6zR1Favxp/FZx0N5OTHvlWaYOkGQ65AcJPgHgVCNG6R5UdUh3Oz\n' +
  'jxg1saVkd+uh0VtIBa1sHx3xFnxznZTW1tqhVMMzXdp4/JkqEDhz7ctcjLHnpKaH\n' +
  'nKg8vZB59TfkHHMIy/LFcgbUCjjyHzCJGzwMN3J/3btUerd8gKKduXEIsI6hcrfd\n' +
  'VVSnegUY+xoU8Tvkfss6vDS+ZjwQwr/sC5ng5ashCepl78HbO6tjtlPnnECgg2Zy\n' +
  'y+W3hsUIUFLgBcXc5ef9r5XwfMyDEyebZITCPKqwTXoHc5Sw5sX3HERxn+q2PS12\n' +
  'at/YRWvDMXantZ73xervVfZP9JoTvNDM/xfU21Gy==\n' +
  '-----END CERTIFICATE-----\n';

export const doc = '-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----';
