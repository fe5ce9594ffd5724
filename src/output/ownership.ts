/**
 * The ownership record, as the output stage uses it. Its format lives in plan/ownership-record.ts,
 * below both the render (which reads the committed output for the guards) and this stage (which
 * writes the record).
 */
export {
  OWNERSHIP_FILE,
  forEachOwnedFile,
  isSafeRelativePath,
  ownershipText,
  ownershipPiecesOfSorted,
  parseOwnership,
  type OwnershipRecord,
} from '../plan/ownership-record.js';
