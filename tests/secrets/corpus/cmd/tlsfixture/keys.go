package main

// testKey signs the fixture certificates.
const testKey = "" +
	"-----BEGIN EC PRIVATE KEY-----\n" +
	"gIyHQjPxOZjHAmy5GHGltC8xFwtBEdsRqCAfR+QgFGQkBu7Rk4vxld2R7osWnD0H\n" +
	"uctA7BfxRhEmBclk5Tm/3/wxAmXVqFuLSa25a9Tadg5kO5/NJZy0UuUlprKs0zJK\n" +
	"0FMseElaNaz9O8NQsxWGuHpHfzHVQuiagx5Fx4cMDdurdcAObJhALdiXHv+K3F98\n" +
	"xsph4Pbx4bqoTuFmkX7AXUxT/XZ+y+71FxCt6Qqx==\n" +
	"-----END EC PRIVATE KEY-----\n"

// testCert is the fixture certificate (public).
const testCert = "" +
	"-----BEGIN CERTIFICATE-----\n" +
	"L4idifQXEIlldO6hrAzfPT/sdWM+Ubl4wgxe5O+qYwkEDcp3odjaN8C6obQP9pFk\n" +
	"Fl0v9WIwTq9XlU6MeizanOJDGQoF9805lkinoxgkCGzyQnoHYtxJagswgMMSf1uT\n" +
	"7lP2fnRULrrBxDvbDSmxJd8pYVIXJ1WABo6FLLa9fQRBYI4HZRE6KTsfWbBfdkpv\n" +
	"y2IC1l2NwKPJUBOjE9cCMsGFb2h4a+xrQU06KgSelZyRSWwuilhvkbnWu2jsI5FB\n" +
	"JRN5rkaPuEnu517Z2sObJNzpUTEk+3QiGVVwJKHPjHUCwDhHtBLvDgfztgOXvEvG\n" +
	"JTETUc4yPlNmVNQegVqdsirgv31ZUBgFxNgrPGSef1vJhoH+GCNFALjJ9z87JUbv\n" +
	"NLAo7RsHbfvZtCSma/S0rJ9Ui9pQjkGMTC2R56ViAF8dFQqOKoYiNNpbB09zl5dM\n" +
	"z1bZ6AnhOLsrz6+g0HLXtMxiE3+ZYLU/gjH9wpMFHru/D9Y7KThArrxWxmtj2LJ3\n" +
	"7Ob2BzFAlW2YYnpMEf9XHrt6u2/RDkzD4zX7sSIFFBXcjJzd5vc0wUv22A9eP5dr\n" +
	"vciZ1rjeG0jqKkUY0iv+wfZrN65mPBcaOTDoftbQ4DHoAfqBakFrlTkoaZJo2c6E\n" +
	"Wk7pRTWN6PVK4RjzViSQaWEF7izI+FFUGsqf6h8+==\n" +
	"-----END CERTIFICATE-----\n"

// golden output of the encoder (base64 of random bytes, not a key)
const golden = "" +
	"AaVnl5aGoZctO+7lnWf6YB02Tsa7xhGeEyQ4BeNykoilhReWsrE1/II+ilmvPikc" +
	"mhfUIvC606MO7SVD6rb/7+fYi1m3172tJIEDIj6Bm6VzX6baYRh2zORymdy7O+ei" +
	"0HSTwn3Ot4n8z8b0BdIZi9w6oDTteLvC1lsBc2WwGE3tzfylNLLcBRD17sFVgl+R" +
	"jOrcC7+m+8Q3wdhdSC1iXDf6FbbAmCGMOrbX0YCN58FMc93tTGrgttf9uITGFUW2" +
	"9uWeGMrwacnxM69Ub+JotyBjfo7s3tIPV3PwQgNMX5=="
