import { parseSecretsText, type ReferenceSecrets, SecretsError } from './secrets.js'
import { loadOrCreateSecretsFile } from './secrets-file.js'

/** Where the secrets came from, for the console and the CLI (never the secrets themselves). */
export type SecretsOrigin =
  | { readonly kind: 'file'; readonly path: string; readonly created: boolean }
  | { readonly kind: 'environment'; readonly variable: string }

export interface LoadedSecrets {
  readonly secrets: ReferenceSecrets
  readonly origin: SecretsOrigin
}

/** The variable a secret store fills with the secrets document (JSON, same format as the file). */
export const SECRETS_VARIABLE = 'PORTCULLIS_SECRETS'

/**
 * Production: a secret store (Vault, AWS Secrets Manager, GCP Secret Manager, a Kubernetes Secret) puts
 * the secrets document into `PORTCULLIS_SECRETS` and nothing is written to disk. Local: the secrets file
 * is generated on the first start (0600) and reused.
 */
// #region load-secrets
export async function loadSecrets(
  secretsFile: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LoadedSecrets> {
  const injected = env[SECRETS_VARIABLE]
  if (injected !== undefined && injected.trim() !== '') {
    try {
      return {
        secrets: parseSecretsText(injected),
        origin: { kind: 'environment', variable: SECRETS_VARIABLE },
      }
    } catch (error) {
      const problem = error instanceof SecretsError ? error.message : 'it cannot be read'
      throw new SecretsError(`${SECRETS_VARIABLE} is malformed: ${problem}`)
    }
  }
  const file = await loadOrCreateSecretsFile(secretsFile)
  return { secrets: file.secrets, origin: { kind: 'file', path: file.path, created: file.created } }
}
// #endregion load-secrets
