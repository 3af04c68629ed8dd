"""Parses an .eml from stdin with Python's email package, strict policy, and prints what it read as JSON.

The strict policy raises on the first defect; headers are also checked for defects of their own
(an encoded word inside a quoted string, a bare LF, ...), which the parser only records.
"""
import json
import sys
from email import policy
from email.parser import BytesParser

data = sys.stdin.buffer.read()
message = BytesParser(policy=policy.strict).parsebytes(data)
defects = [type(d).__name__ for d in message.defects]


def addresses(name):
    header = message[name]
    defects.extend(f'{name}: {type(d).__name__}' for d in header.defects)
    return [[a.display_name, a.addr_spec] for a in header.addresses]


parts = {}
for part in message.walk():
    defects.extend(type(d).__name__ for d in part.defects)
    if part.get_content_maintype() == 'text':
        parts[part.get_content_type()] = part.get_content()

subject = message['subject']
defects.extend(f'Subject: {type(d).__name__}' for d in subject.defects)
print(json.dumps({
    'defects': defects,
    'subject': str(subject),
    'from': addresses('from'),
    'to': addresses('to'),
    'template': str(message['x-sendbox-template']),
    'messageId': str(message['message-id']),
    'html': parts.get('text/html'),
    'text': parts.get('text/plain'),
}))
