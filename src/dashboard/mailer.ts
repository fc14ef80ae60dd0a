// Outgoing mail for `email` sign-up, through the operator's SMTP server (MUNJA_SMTP_URL). The
// message is plain text: the link, what it is for, and what to do when it was not asked for.
import { createTransport, type Transporter } from 'nodemailer';

export interface Mailer {
  sendVerification(to: string, link: string, validHours: number): Promise<void>;
}

// A mail server that does not answer must not hold a sign-up (and its connection) for minutes.
const SMTP_TIMEOUT_MS = 10_000;

export class SmtpMailer implements Mailer {
  readonly #transport: Transporter;
  readonly #from: string;

  constructor(smtpUrl: string, from: string) {
    this.#transport = createTransport({
      url: smtpUrl,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    });
    this.#from = from;
  }

  async sendVerification(to: string, link: string, validHours: number): Promise<void> {
    await this.#transport.sendMail({
      from: this.#from,
      // An address object, never a string nodemailer would parse as a list of addresses.
      to: { name: '', address: to },
      subject: 'Confirm your email address',
      text: [
        'Someone (we hope you) signed up with this email address.',
        '',
        `To confirm it and finish signing up, open this link within ${validHours} hours:`,
        '',
        link,
        '',
        'If you did not sign up, ignore this message: no account is made without the link.',
        '',
      ].join('\n'),
    });
  }
}
