import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A PEM key and certificate. */
export interface TestCertificate {
  readonly key: string
  readonly cert: string
}

export interface LoopbackCertificateOptions {
  /** The certificate's common name (what a test's failure message shows). */
  readonly commonName: string
  /** Subject alternative names beyond `IP:127.0.0.1` and `DNS:localhost`, as openssl writes them. */
  readonly extraNames?: readonly string[]
}

/**
 * A self-signed P-256 certificate for 127.0.0.1 and localhost (and `extraNames`), made by `openssl` when
 * called (no key is ever committed) and valid for two days. Each call is a new key: two calls give a
 * trusted certificate and one that impersonates it.
 */
export function loopbackCertificate(options: LoopbackCertificateOptions): TestCertificate {
  const folder = mkdtempSync(join(tmpdir(), 'portcullis-test-cert-'))
  try {
    const key = join(folder, 'key.pem')
    const cert = join(folder, 'cert.pem')
    const names = ['IP:127.0.0.1', 'DNS:localhost', ...(options.extraNames ?? [])]
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        `/CN=${options.commonName}`,
        '-addext',
        `subjectAltName=${names.join(',')}`,
      ],
      { stdio: 'ignore' },
    )
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') }
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}
