import os, smtplib, sys
from email.message import EmailMessage

msg = EmailMessage()
msg['Subject'] = 'Weekly report'
msg['From'] = os.environ['REPORT_FROM']
msg['To'] = 'team@company.example'
msg.add_attachment(open(sys.argv[1], 'rb').read(), maintype='text', subtype='csv', filename='report.csv')
with smtplib.SMTP_SSL('smtp.gmail.com', 465) as s:
    s.login(os.environ['REPORT_FROM'], os.environ['SMTP_APP_PASSWORD'])
    s.send_message(msg)
