"""Django settings for the billing service."""
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
DEBUG = os.environ.get('DEBUG') == '1'
SECRET_KEY = 'dj*wJSkRjaxuUSvvUYSSoF0j8kPtlDAVaS^3dBzwqHVVX363H^'
ALLOWED_HOSTS = ['billing.internal']

# AWS
AWS_ACCESS_KEY_ID = 'AKIABOP56Z65H7XEZH5V'
AWS_SECRET_ACCESS_KEY = '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'
AWS_SESSION_TOKEN = 'jfNhzgBfezXDBvvMLIwko8IOA5DyH2nDbwFLCPJAXVhdrE3VJXjTCOGLgk37eI7O2pjVwp6sc/VEn2KnPoYLgTaHL+E9yTYL+9S4xDQNMAAL5QaDtpc6RzGKXi5Asa6smYgOw9RTEzi1JGLEXa0sO40x9ehcZGvQfZnHg5wplQ70MxrbgPN9A5Ps05abweVOX3CFavUZdFf8DbklH7MDj/t5iovL+/VCt7I3II5c7MlF/E/+gAMcM06RECaQqtkmhLBfXqdy1NGZZ2vdNpez8QotcpFNC0wBe/TgZLmc7VMP'
AWS_REGION = 'eu-west-1'
AWS_STORAGE_BUCKET_NAME = 'billing-invoices'

# payments
STRIPE_SECRET_KEY = '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'
STRIPE_REPORTS_KEY = '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'
STRIPE_WEBHOOK_SECRET = 'whsec_iATDXRw0Fr8K7wUOdHsauE5iylGiFpF3'
STRIPE_TEST_KEY = 'sk_test_NV1FOQq6obbndyktw7bxVzeQ'
STRIPE_PUBLISHABLE_KEY = os.environ['STRIPE_PUBLISHABLE_KEY']
BRAINTREE_TOKEN = 'access_token$production$17h7yt8ex7dfolqv$755082e9ba8c81d13c4cadddad2d9147'
BRAINTREE_SANDBOX = 'access_token$sandbox$t6rssuwvs457vzaf$d57ad38a34f0d70da542ce40f36231f8'
PAYPAL_CLIENT_SECRET = 'YpV16_VraYkrLOo594Bclbi9OS_Qt-ojM4emvLwlpVw0RI-lFk5sPrQE2G4kZmabhZM4HMmvrDGY7xgM'
SQUARE_ACCESS_TOKEN = 'EAAAU2IYvackVjin9P9vlM1HNcnNGap7hvqrBpqDtXGO2TMwHO-AdF5CDuJu2VDa'
SQUARE_APP_SECRET = 'sq0csp-V-256PCLB8dQqlm1ynrfXAEdGkhbBJcbCsF-1zBRrn5'
RAZORPAY_KEY_ID = 'rzp_live_2PEZMdSK21qEDZ'
FLW_SECRET_KEY = 'FLWSECK-d686789c025898eec530g77edae6e7ae-X'
PLAID_ACCESS_TOKEN = 'access-production-1b18dfa0-2eb0-4d09-e47d-0d9178b68cd1'
PLAID_SECRET = '06ed38bc5076341711efcb20f65796'
SHIPPO_TOKEN = 'shippo_live_2f9641553a4322e59fe72f49fc7741477d9105cc'
EASYPOST_API_KEY = 'EZAKJB3iMy1jnqfjPt0CGWVIa8JQ3Ao0ecWjhCH7SfVOkSwCzcLuFkloEb'
EASYPOST_TEST_KEY = 'EZTKNNTyAfXi9phy0caHy1FCAra4rfON0II2ysp4zrC0pTfrKGVLNnjKgo'
GOCARDLESS_ACCESS_TOKEN = 'live_7tnmODUVhEK32yk0mHkHuPKrAzX4j6qs4C-mMrfB'
COINBASE_API_SECRET = 'A7di4DCk4zwX2MdXE8unhSt0b9Jm6OGRB7MrYcOfVVFpI1QalQXv953c83dfFMKg'
ADYEN_API_KEY = 'AQE4cqH/E1gq3Iu.7wJttniYN0JKx0EgtNm=e+E4Wz7KZSs2wvnS2mKVIQFObVyThCtUai1ob5goMy4wqQkjU/J87C1XyPSnxwBHPFS'
LOB_API_KEY = 'live_f24e65a7e23e6829edcd44971b851cb65bf'

# mail
SENDGRID_API_KEY = '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'
MAILGUN_API_KEY = 'key-ff6b2ffa5dcfd3b445dd788d3f534ce0'
MAILGUN_WEBHOOK_SIGNING_KEY = '3ece37f5a3a460b0c2e13c68c974d986'
MAILCHIMP_API_KEY = 'efde2a3b9851ae7fc32a66c628986b8b-us14'
MANDRILL_API_KEY = '26MO6ZVdIL7RxR6_6j55oZ'
BREVO_API_KEY = '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'
POSTMARK_SERVER_TOKEN = '943d1bf3-520a-27db-4e81-81d304f000f6'
SPARKPOST_API_KEY = 'd46906e66f9d8bb55817e78a6ec015bac4e778c7'
TWILIO_API_KEY = 'SK6c48c5c2029f7c3ddb565ad52f1ac6bd'
TWILIO_AUTH_TOKEN = 'f943552fd52cd3f76a7619d86f657421'
TWILIO_ACCOUNT_SID = os.getenv('TWILIO_ACCOUNT_SID')
MESSAGEBIRD_API_KEY = 'toz8prHpmCa5XFqGvvU8hzx3h'
VONAGE_API_SECRET = 't1LPhVrm0pXXQ2Ie'

DATABASES = {
    'default': {
        'ENGINE': 'django.db.backends.postgresql',
        'NAME': 'billing',
        'USER': 'billing',
        'PASSWORD': 'Wq77QQaZAjBPKRwF4',
        'HOST': os.environ.get('DB_HOST', 'localhost'),
    }
}

# negatives: names without values, lookups, placeholders
PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']
AUTH_PASSWORD_VALIDATORS = []
password = os.environ['DB_PASSWORD']
api_key = settings.API_KEY
token = get_token(request)
SECRET_KEY_FALLBACKS = []
DEFAULT_PASSWORD = "changeme"
API_TOKEN = "your_api_key_here"
GITHUB_TOKEN = "<your-github-token>"
STRIPE_KEY = '${STRIPE_KEY}'
SLACK_TOKEN = 'xoxb-xxxxxxxxxx-xxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx'
if password == '':
    raise ValueError('password required')
def check_password(password, hashed):
    return bcrypt.checkpw(password.encode(), hashed)
