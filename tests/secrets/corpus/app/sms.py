"""Sends order notifications by SMS."""
import hashlib
import os

from twilio.rest import Client

account_sid = 'ACe6dbf06528054b485f5c3170200ba028'
auth_token = 'ee0652ea501bad04844c70604242026b'
client = Client(account_sid, auth_token)

staging_auth_token = os.environ['TWILIO_STAGING_AUTH_TOKEN']
TEMPLATE_DIGEST = '18742a5a8ad3a7c56d04b7ca7bbfeee6'  # md5 of templates/sms.txt
order_hash = '1df7345c0f8d86ac567d5068fba66bc8'

def send(to, body):
    return client.messages.create(to=to, from_='+15005550006', body=body)
