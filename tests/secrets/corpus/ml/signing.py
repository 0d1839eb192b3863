"""Signs model artifacts before upload."""
from cryptography.hazmat.primitives import serialization

SIGNING_KEY = (
    '-----BEGIN PRIVATE KEY-----\n'
    '441+RWx8oYX9V96zDT4zUEs+7rWEuk5jm4z81wi2zgEArNZtImyhRG/f3cQDsru1\n'
    'ZjnDlNtTyVqoZB4Dejc9sYmmGRdaGDfYN+4df1TrxH2di973GvGip7hFRCMecZMZ\n'
    'E99V5ZsNPTq3yEH6l7KpQ/BoMUfH+mYNBOUPCcp+Bt1AWh0+X3cs1vSSX9+P5kIm\n'
    'ZSvzvZXqGm9mtn40JLx/AZYnXUTg2LT3OyRPt2qaxlGMzeL2lbQJqO2O+7eLFZEY\n'
    'zj7HMGRM2NnP4H86aSRHh5sPmuCAVfZkwGylBd9Q3NAp76VN7UZt+MxLhYQPS3NS\n'
    'M9DoYrS+FuA0lnRuFJeFMlDCPSVzrIqUKGuZYTgALKaPyHvZN6g+LqTG1/XwI0Nt\n'
    '7OOpOicQ70fzKzB4PV696i1Zh290X2QuUqOzr4YS0J/iLum3fJB1o0HlUw0u/Uen\n'
    'uu3FvgZI8FU7SVK3dQoxIQuj+2+jsHhGTaioAWejtGnX3YApAAyDJ09HdFvBod3s\n'
    'JsQr6t8Xe+CmuyA7eTjubUCp06QO4ymRZkFz4jy/uQ7v3qDnKL/JQ0Hz1HgAi2f7\n'
    'j+2OXSBWDuMQ6FnuWnwR7mIlJAdr7993V19zNiWQ2Lud9XXFPhMmMVjD5gnp+zmq\n'
    'marj369DjsqTy3D+WazTRpb0tBvwQ/KSK+NPZ9qA2pnj1dVNxe8faMXV2/E1RMSf\n'
    'cViPnR2pQ//kfRNQ8CaYnqydHK040uA+GMFMf8t+T1N1BCuzq9D8VuxNK6SSuvlT\n'
    'rHoLabLpE/BOU+Se02jq1UrW8XrZ7Kj2soDsaDjjd3CyemGDbuqncXBJtXy5A4pE\n'
    'Lrlf4dMCRbevj1I1PF9f8I6NmSPBAsV9nl/ZSvbZ53yGADQo8z4K9l6eISsjNyea\n'
    'NRQ+oL39VF4lZYyhvFBE4U3Rn25LGOiXOlW4gYnfyT++TRRmq/5zYqhMJXSjZ9xP\n'
    'sNoGG3elBdzGvFfpZ7lhSMxtYUPc0Y6kM7F53SdJV3NTnZQAXV97gis820AFKf6o\n'
    'VrLc9ZgBm6SA9z2TRZnCDTGYeNsseMuzHAgk7TVx==\n'
    '-----END PRIVATE KEY-----\n'
)

VERIFY_KEY = (
    '-----BEGIN RSA PUBLIC KEY-----\n'
    'QLGuCfQQq3YzGyNZbArywWJNGCFo9uOtNvOSSHGza1hLNwtIxoAf3PZa1oqW6O2q\n'
    'BbLa742D1BhobtyEGfAoHl4wfTigWC38/AaL4iMFDfjFhSBgyoEzDZn2GGaRFuCe\n'
    '3wIQ5ieZeXjHgPKaT+cE9C/LxNMYT9GwWaJrr5qeGY5tNj+AG+KwueB6MID+0OMh\n'
    'L/NmwrTi/5fBn6df1y1a2I77vm8WaMtXI+Sz3eunOQJHniJtJFE/u+6pbEtbyujw\n'
    '12xnLX96iJ+Hl0D86yfobgQiDnTW6pPT+LigG5Dy==\n'
    '-----END RSA PUBLIC KEY-----\n'
)

# a pickled tokenizer vocabulary, base64 (a test fixture, not a key)
VOCAB_FIXTURE = (
    'ngLYg9Nh+xNqQ/8RYzTSlaD5Yf/mTfmzlSfdZDZ0qpAMKbN8uLTGZUPQgRXgP1wg'
    '6sYDLxX9Ks3nGULtDN+QjgESVyDQ2MuL+ybOhrfEDbgyQSiysQJjg3DpVXwJpdNu'
    'VQvTcz10dfwMr/e65Ff/ZQGCYS0Oe7skyyRRqFjzCLpLD4sZg0MDIS8+/alM09Zy'
    'YvcY3LHz2PuGw824fuFwGnaoIIRtuHdXXJiH1oEibJAOtmT9ini2pLPHVVfZABdl'
    'wHdsyH4UZuNNcoEVTcJpT8eeJ+GnVFezdd4R5ql163W4C5qzm8X+6wDmggKX8qAx'
)

def load():
    return serialization.load_pem_private_key(SIGNING_KEY.encode(), password=None)
