/**
 * Variable substitution with clusterctl's semantics: the only pipeline phase that sees raw text.
 * inspectVariables lists what a components file needs; substituteVariables is clusterctl's
 * Process(). Everything else in this folder is internal.
 */
export {
  compileTemplate,
  inspectVariables,
  substituteVariables,
  type CompiledTemplate,
  type PartsSubstitution,
  type SubstitutionResult,
  type VariableUse,
} from './processor.js';
export { MissingVariablesError, MISSING_VARIABLES_HINT } from './missing-variables-error.js';
export type { Lookup } from './evaluate.js';
export { crossesDocuments, type DocumentPart } from './document-parts.js';
export { describeComponentVariables, type DescribedComponents, type DescribedVariable } from './describe.js';
