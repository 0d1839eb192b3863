/* testkeys.c - keys for the TLS handshake tests. */
#include "crypto/testkeys.h"

const char *const server_key_pem =
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "41nOzZCtjsoFCsIMiAiwfFBWojKYxexpEZ9lC8oDyBT9GuQYBNiQV/3o+z0nk/7x\n"
    "EZtiQRXWr5imjybH9IX91cAGZhjojHuOZyQXBjmuWDtgQGT0wHb0hksoHqLmnj6D\n"
    "7Ej+5VFK5e42RQXnaResEG5/n3ORP7ph1FJymp57bKMH7T2KdurPIqLHDCrEUM4y\n"
    "rDLiu/Wn26gwINOxYtqZ4JOPtgROLQqbBsOYqQgD4Qw5JcY1LnJAr8kFZf8gPR2a\n"
    "YUk3YAIBsRkinuf4dWMQui8g7uLEVJVARO5WZRIX3RVVmTbjSEZF9BNkBfeYsaCd\n"
    "d1kxLLHHk07EQ+GzxGejwFLdRlgdS3AM+YQnnCsy4GeHmllQWLMy66tL5zzMtJrl\n"
    "daYQ/mlobKJxx3XVQueuoymy0zkIhw9ExyQ+nLTxafgMaRZOZsSJeAXvoPS4Bx8Y\n"
    "mD1tpdVv0bOzyhp9HM6r08+/Iq/3jX8mfaGdERDolJ8K/wCcIhYfVgn4jUyGXrJ3\n"
    "YkgzYS8+8V1wlzuJcP4tBP2JSLUVtnG3wbUQihKLNmNGFaZzLdHcUDw27+KWysvx\n"
    "+hypU45QXl27uDmho0o2yioJnPtfcmw2UAs88zhHAvQ9PYZ+q9Qh7Bqvow/demqv\n"
    "VwBELm0/L6tGYjOFyMPDFMhoeWfM5+EAjSYvbpYRpt6ulTJnQFjhYXv8iXeyotJD\n"
    "L3Uix2M1dV2XcfeAyXunAcCIxDI5wgMCDDLwLN9kuvm59hN6NoYnH3gJPeg6Et6K\n"
    "kKCElYPkfOU8AnTZY6o4FUJavhNG3hlCPMM+psk+mY9Uw5A+S85TmcjuxYXue5Df\n"
    "sWr/JCap+ScXA2SMQ8+peOX1rPnQvjC7nhQy4nCf1NIE9cBVdBXX73T7SevuIpcZ\n"
    "44/0w75hAOQ7IMIY5vpW2GdgWw0FYNVFCU/LxFmfYczu57yro1pAyV3T+p3L1Ezh\n"
    "Y8qpVz39D7BtFEaUvVIsccUTB6M/7wshgt72ikYNrpPLndgSRvE4F8QPJXMYIV3E\n"
    "W5UqP7BRVXvt0jn2NKxIGI5rYIJMricJeWRh0UOGCblvpQlMBCgfPJRTxDboc6uB\n"
    "0y2OO5Gx4vbqdqTSPRtQbw0KxG36EDCrZX32tKNjHYbvkJmCtyjQ4OGBpzd6GctK\n"
    "rmkrMxZWFyPsTHqC4asomtdCrAyAZLBWOwLQT1pF+WEg7C/scsZ5f1edEfvohxfn\n"
    "5DAqAcj0Pm25L5lI87lzlL7gddLwQma4Rhc+H1JOKSQrpX2zBklhdz2Y04+NQkDA\n"
    "ruIxemVz5GQNQM/BYcM9GbPAgGQIBepw6W3emSBYMLUUGwoL9Ktg/5cRVU6pLRSG\n"
    "5eBrufDrrgbBmMLcZWS3NUrJtjt7hTQs1GxjO+S//VLNOgbS6iYG2/pb6mSgx5YS\n"
    "GcO9aPftox7nea0yBAHvyHxgp9DFX6w/ypBFztpY+mIl8BNUnkd5/WGQSJ/zrATl\n"
    "kkOuOlRGaKJw2ozex6QPTQrv+2jTXHSUquMdXQl2jWXiRVVwfcmawNGD56zlLIh4\n"
    "xX5Xn+LFCYjd6ezgNDnU9vFxYnYJGQN8O/kz/DYGZfWNTD2JmnQiYprh+IJKzkcG\n"
    "sjibTWKMnu3RYwLvPIC5SO7YeVFWkMpWGLM04N/x==\n"
    "-----END RSA PRIVATE KEY-----\n";

/* the server's public key and certificate (public by nature) */
const char *const server_pub_pem =
    "-----BEGIN PUBLIC KEY-----\n"
    "/UTgPLl5JDdTQaV4kb/TQmaQsTzEf974rXC05hvTABA9rJJdPmaBpjPkxUc5xNpK\n"
    "LU8BsaIQYt0+I/kjtiTu4N7FH4no9pHJJylUDYDfbZYg7DSka+oeQeRvpV88+4Ql\n"
    "qTPYmIdI8lY1x1rOVbcNY1EixGTTN16iBN54NRZNrIV6Ni00p3pFcrIyS0oR63dI\n"
    "AKtkb5m/YYhxQPw0opV/fjYYbk748hTOxlVHmQ4EvDCxJfWrDGo8gW2/L7Apg71U\n"
    "tawH2aTajTjZAfal6ALFciXpZElkIAKtGlmfLFHe0UI0TZEUN5QnAS+5S9Kk2WJ5\n"
    "iFObsxp/afk42pjqpZ5DGf9jHfC36hLqIEbgo6gu/5eY2m2x0ZREpHvo1e87/g22\n"
    "IbNqqP6ueXyZizho/+8HXBBcK037rRASM0CyQ3ss==\n"
    "-----END PUBLIC KEY-----\n";
const char *const server_cert_pem =
    "-----BEGIN CERTIFICATE-----\n"
    "eIeXzmovLVOrj9RIhJJ+eUaKLkddJBDksULveX7btbFISUgNyj0uMMz2epJ0h3H3\n"
    "PGu/CB5gTlTm5MEXbsCiTFW4/bZwBpL9CP2QyKU3sjO6ZNcXJP1m+3YneqIpn/6G\n"
    "AFxY1dDXU4zm9fX4xp64N5E/aoxrFv8jnSzwl1BfX9SSuhLsyIRLs4YvcJ5a9QHo\n"
    "FwGzA4HgEVKxIptE2jt+v8mZs0eflod7vU8YbZCsm/u+Gunq6NfDM31abyQOyNNr\n"
    "+ODrzI8mHy51FQYWUBMDgR7X4RtWRcDdluKz5+n5Xnl9kE8S6XZz7iXKfHov/3Hq\n"
    "JK8NkEEk4sKgejj4f2JYf6acxnocSqkluHv3nkYyfTnb4G0Kx7XSVXt3YCSSfPeY\n"
    "ZFhCRLbBY7nrpLdMbXoA98X8z3jOQih406gEgK2uUbNjH5+dwsIoVB4CkD2UmlP6\n"
    "LDE3/7yOX8nVAN0e0yEEzb8QQyuqyCtb6ggfCv43fbmf49dfUmwGPrU0djoNC7u1\n"
    "R2xtLQKTHJ6qiKyM589Nr82oe3VjXTFp+6uBeAt6msYvVplB3I8gqLdcb1w5KZCI\n"
    "cXMcu6pkPuGEQm6enx1i/rvIFX82cYQ3E8xoQuqVJuQyGAv96lN7NVieQVSR3uTJ\n"
    "3IqtZgkibG1Ik5we8Sg4D4fIdwoVpLTu9+XO4yEIbR3tG3rjou6nmgRGkUhw5efF\n"
    "1QsAMX/8AMoRIG3yCNxE1wZ0u0kM7N7VZ9QQ+mFwtvSlKGFfR+tVzqlFFBplaeSh\n"
    "5Q5qegRYhv2hxlwY4EA0j+EeTrO3dmAlWX/rOguE==\n"
    "-----END CERTIFICATE-----\n";

/* DER bytes of a test message, base64 (not a key) */
const char *const fixture_msg_b64 =
    "vyUJU7CZj3wBVK/39h+NGeYjJQh1xA+OAmcm3ovbH4FgMxSVGnH60erbP55DdR2A"
    "E3YMkruMkyizEWAj+TDBquknOuAlNgGIadlPjDLB/EBfagbji3gLWoloOlgs7oP2"
    "2RhjoATM2tVViTGZvZgQyJbDsc/2MU8/+/pGWPynV5wY25UIZxOEoRo2GYhuW1Ml"
    "uOVqW2fr3QX55/LFnFdFsIw406UdAZcB+CEojT/dYIpBkoP4o8Kt6CU9nSXqkbXK"
    "gixpYonrwYraihhlag4QL2r2/FPiFT0dSUBSTlprbT/dI8mLy6/zkOFvIkP1rGeI"
    "jXtQhBXjYSuonBnfPdxt2MeIN8eT0L8yKDuhnYSH9zy3ghfJ6T11lFvGaGh5WHb/"
    "hP89a8xNPAXGPUuxAEN6YQCOrXOvsY==";
