/**
 * Encrypts small values kept in the table (a GitHub App installation's access token) under the
 * platform's key: a KMS key on AWS, the local key file of the encrypted secret store locally.
 * `context` says where the sealed value is kept (its row's key): opening it under any other
 * context fails, so a sealed value copied to another row is never accepted there.
 */
export interface TokenSealer {
  /** The plaintext encrypted and bound to `context`, as text that fits in a table attribute. */
  seal(plaintext: string, context: string): Promise<string>;
  /**
   * The plaintext, or undefined when the value does not open: another context, another key, or
   * altered. A service that cannot answer (KMS throttled or down) throws instead, so a caller can
   * tell "unreadable, replace it" from "try again".
   */
  open(sealed: string, context: string): Promise<string | undefined>;
}
