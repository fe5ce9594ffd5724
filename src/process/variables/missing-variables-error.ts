/**
 * The one error clusterctl raises when a template needs variables nobody set
 * (simple_processor.go errMissingVariables), as a SpecError that also carries the names as data.
 */
import { SpecError, error, peerWording } from '../../errors.js';

/** How a user supplies a variable to capi-render. */
export const MISSING_VARIABLES_HINT =
  "set each one under `variables:` in capi-render.yaml or in an overlay, or as a key of the provider's " +
  'spec.configSecret; a variable with a default in the template (`${NAME:=value}`) is optional';

/**
 * Thrown by substituteVariables when required variables (no value, no default at first use) exist.
 * Code `variables-missing`; `missing` lists every such name once, sorted, so callers and tests read
 * the names without parsing the message.
 */
export class MissingVariablesError extends SpecError {
  /** Names without a value or default, sorted in Go byte order. */
  readonly missing: readonly string[];
  /** The template's source, as given to substituteVariables. */
  readonly source: string;

  constructor(source: string, missing: readonly string[]) {
    super(
      // As NewComponents words it (components.go wraps simple_processor.go's errMissingVariables).
      error(
        'variables-missing',
        peerWording(
          'clusterctl',
          `failed to perform variable substitution: value for variables [${missing.join(', ')}] is not set`,
        ),
        {
          file: source,
          hint: MISSING_VARIABLES_HINT,
        },
      ),
    );
    this.missing = missing;
    this.source = source;
  }
}
