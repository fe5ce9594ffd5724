/**
 * The plural clusterctl computes for a kind when it checks CRD names (cluster-api
 * `util/contract.CalculateCRDName`: `flect.Pluralize(strings.ToLower(kind))`, gobuffalo/flect
 * v1.0.3). flect is an English inflector with quirks, and clusterctl's verdict depends on them, so
 * this module reproduces its behaviour on one lower-case word rather than "correct" English.
 *
 * Design notes: docs/internals.md "process/kind-plural.ts".
 */

/** A word flect knows. `exact`: only the whole word, never as the end of a compound. */
interface KnownWord {
  singular: string;
  plural: string;
  /** Another accepted plural, which counts as "already plural". */
  alternative?: string;
  /** The plural does not lead back to this singular (so it is not "already plural" through it). */
  oneWay?: boolean;
  exact?: boolean;
}

const word = (singular: string, plural: string, extra: Omit<KnownWord, 'singular' | 'plural'> = {}): KnownWord => ({
  singular,
  plural,
  ...extra,
});
const same = (singular: string, alternative?: string): KnownWord =>
  word(singular, singular, alternative ? { alternative } : {});

/** The known words, in flect's order (which decides which compound rule is tried first). */
const KNOWN_WORDS: readonly KnownWord[] = [
  // Same in both numbers.
  same('aircraft'),
  same('beef', 'beefs'),
  same('bison'),
  word('blues', 'blues', { oneWay: true }),
  same('chassis'),
  same('deer'),
  same('fish', 'fishes'),
  same('moose'),
  same('police'),
  same('salmon', 'salmons'),
  same('series'),
  same('sheep'),
  same('shrimp', 'shrimps'),
  same('species'),
  same('swine', 'swines'),
  same('trout', 'trouts'),
  same('tuna', 'tunas'),
  same('you'),
  // -en, vowel changes and other old plurals.
  word('child', 'children'),
  word('ox', 'oxen', { exact: true }),
  word('foot', 'feet'),
  word('goose', 'geese'),
  word('man', 'men'),
  word('human', 'humans'),
  word('louse', 'lice', { exact: true }),
  word('mouse', 'mice'),
  word('tooth', 'teeth'),
  word('woman', 'women'),
  word('die', 'dice', { exact: true }),
  word('person', 'people'),
  // French -u.
  word('adieu', 'adieux', { alternative: 'adieus' }),
  word('fabliau', 'fabliaux'),
  word('bureau', 'bureaus', { alternative: 'bureaux' }),
  // Greek -on → -a.
  word('criterion', 'criteria'),
  word('ganglion', 'ganglia', { alternative: 'ganglions' }),
  word('lexicon', 'lexica', { alternative: 'lexicons' }),
  word('mitochondrion', 'mitochondria', { alternative: 'mitochondrions' }),
  word('noumenon', 'noumena'),
  word('phenomenon', 'phenomena'),
  word('taxon', 'taxa'),
  // Latin -um → -a, and exceptions.
  same('media'),
  word('medium', 'media', { alternative: 'mediums', oneWay: true }),
  word('stadium', 'stadiums', { alternative: 'stadia' }),
  word('aquarium', 'aquaria', { alternative: 'aquariums' }),
  word('auditorium', 'auditoria', { alternative: 'auditoriums' }),
  word('symposium', 'symposia', { alternative: 'symposiums' }),
  word('curriculum', 'curriculums', { alternative: 'curricula' }),
  word('quota', 'quotas'),
  // Latin -us → -i / -era. (flect spells octopus' plural "octupuses".)
  word('alumnus', 'alumni', { alternative: 'alumnuses' }),
  word('bacillus', 'bacilli'),
  word('cactus', 'cacti', { alternative: 'cactuses' }),
  word('coccus', 'cocci'),
  word('focus', 'foci', { alternative: 'focuses' }),
  word('locus', 'loci', { alternative: 'locuses' }),
  word('nucleus', 'nuclei', { alternative: 'nucleuses' }),
  word('octopus', 'octupuses', { alternative: 'octopi' }),
  word('radius', 'radii', { alternative: 'radiuses' }),
  word('syllabus', 'syllabi'),
  word('corpus', 'corpora', { alternative: 'corpuses' }),
  word('genus', 'genera'),
  // Latin -a → -ae.
  word('alumna', 'alumnae'),
  word('vertebra', 'vertebrae'),
  word('differentia', 'differentiae'),
  word('minutia', 'minutiae'),
  word('vita', 'vitae'),
  word('larva', 'larvae'),
  word('postcava', 'postcavae'),
  word('praecava', 'praecavae'),
  word('uva', 'uvae'),
  // Latin -ex / -ix → -ices.
  word('apex', 'apices', { alternative: 'apexes' }),
  word('codex', 'codices', { alternative: 'codexes' }),
  word('index', 'indices', { alternative: 'indexes' }),
  word('latex', 'latices', { alternative: 'latexes' }),
  word('vertex', 'vertices', { alternative: 'vertexes' }),
  word('vortex', 'vortices', { alternative: 'vortexes' }),
  word('appendix', 'appendices', { alternative: 'appendixes' }),
  word('radix', 'radices', { alternative: 'radixes' }),
  word('helix', 'helices', { alternative: 'helixes' }),
  // Latin -is → -es.
  word('axis', 'axes', { exact: true }),
  word('crisis', 'crises'),
  word('ellipsis', 'ellipses', { oneWay: true }),
  word('genesis', 'geneses'),
  word('oasis', 'oases'),
  word('thesis', 'theses'),
  word('testis', 'testes'),
  word('base', 'bases'),
  word('basis', 'bases', { oneWay: true }),
  word('alias', 'aliases', { exact: true }),
  word('vedalia', 'vedalias'),
  // Endings that would otherwise meet the -s/-o rules.
  word('use', 'uses', { exact: true }),
  word('abuse', 'abuses'),
  word('cause', 'causes'),
  word('clause', 'clauses'),
  word('cruse', 'cruses'),
  word('excuse', 'excuses'),
  word('fuse', 'fuses'),
  word('house', 'houses'),
  word('misuse', 'misuses'),
  word('muse', 'muses'),
  word('pause', 'pauses'),
  word('ache', 'aches'),
  word('topaz', 'topazes'),
  word('buffalo', 'buffaloes', { alternative: 'buffalos' }),
  word('potato', 'potatoes'),
  word('tomato', 'tomatoes'),
  // Uncountable.
  same('equipment'),
  same('information'),
  same('jeans'),
  same('money'),
  same('news'),
  same('rice'),
  // Exceptions to the -f(e), -y, -um, -a and -o rules.
  word('dwarf', 'dwarfs', { alternative: 'dwarves' }),
  word('hoof', 'hoofs', { alternative: 'hooves' }),
  word('thief', 'thieves'),
  word('chive', 'chives'),
  word('hive', 'hives'),
  word('move', 'moves'),
  word('movie', 'movies'),
  word('cookie', 'cookies'),
  word('pretorium', 'pretoriums'),
  word('agenda', 'agendas'),
  word('formula', 'formulas', { alternative: 'formulae' }),
  word('shoe', 'shoes'),
  word('toe', 'toes', { exact: true }),
  same('graffiti'),
  word('ID', 'IDs', { exact: true }),
];

/**
 * General endings, singular → plural, in priority order (the first match wins). Some are flect's
 * own oddities, kept because clusterctl inherits them: every Latin `-ula` ending becomes `-bulae`.
 */
const ENDINGS: readonly (readonly [string, string])[] = [
  // -f / -fe → -ves
  ['tive', 'tives'],
  ['eaf', 'eaves'],
  ['oaf', 'oaves'],
  ['afe', 'aves'],
  ['arf', 'arves'],
  ['rfe', 'rves'],
  ['rf', 'rves'],
  ['lf', 'lves'],
  ['fe', 'ves'],
  // -y → -ies after a consonant
  ['ay', 'ays'],
  ['ey', 'eys'],
  ['oy', 'oys'],
  ['quy', 'quies'],
  ['uy', 'uys'],
  ['y', 'ies'],
  ['eau', 'eaux'],
  ['bula', 'bulae'],
  ['dula', 'bulae'],
  ['lula', 'bulae'],
  ['nula', 'bulae'],
  ['vula', 'bulae'],
  ['hedron', 'hedra'],
  // -um → -a
  ['ium', 'ia'],
  ['seum', 'seums'],
  ['eum', 'ea'],
  ['oum', 'oa'],
  ['stracum', 'straca'],
  ['dum', 'da'],
  ['elum', 'ela'],
  ['ilum', 'ila'],
  ['olum', 'ola'],
  ['ulum', 'ula'],
  ['llum', 'lla'],
  ['ylum', 'yla'],
  ['imum', 'ima'],
  ['ernum', 'erna'],
  ['gnum', 'gna'],
  ['brum', 'bra'],
  ['crum', 'cra'],
  ['terum', 'tera'],
  ['serum', 'sera'],
  ['trum', 'tra'],
  ['antum', 'anta'],
  ['atum', 'ata'],
  ['entum', 'enta'],
  ['etum', 'eta'],
  ['itum', 'ita'],
  ['otum', 'ota'],
  ['utum', 'uta'],
  ['ctum', 'cta'],
  ['ovum', 'ova'],
  ['trix', 'trices'],
  // -is → -es
  ['iasis', 'iases'],
  ['mesis', 'meses'],
  ['kinesis', 'kineses'],
  ['resis', 'reses'],
  ['gnosis', 'gnoses'],
  ['opsis', 'opses'],
  ['ysis', 'yses'],
  // sibilants and -o
  ['ouse', 'ouses'],
  ['lause', 'lauses'],
  ['us', 'uses'],
  ['ch', 'ches'],
  ['io', 'ios'],
  ['sh', 'shes'],
  ['ss', 'sses'],
  ['ez', 'ezzes'],
  ['iz', 'izzes'],
  ['tz', 'tzes'],
  ['zz', 'zzes'],
  ['ano', 'anos'],
  ['lo', 'los'],
  ['to', 'tos'],
  ['oo', 'oos'],
  ['o', 'oes'],
  ['x', 'xes'],
];

/**
 * Whole words flect reads as acronyms, where that changes the plural: the acronym bypasses the
 * suffix rules (`ssh` → `sshs`, not `sshes`), and one ending in `S` meets flect's rule for upper-case
 * abbreviations, which appends the upper-case form (`dns` → `dnsDNSes` — a name no CRD can have, so
 * clusterctl refuses such a CRD unless it is annotated). Acronyms that just gain `s` are not listed.
 */
const ACRONYM_PLURALS: ReadonlyMap<string, string> = new Map([
  ...['aes', 'bss', 'cmos', 'des', 'dns', 'ess', 'fcs', 'https', 'ids', 'ips', 'mpls', 'pots'].map(
    (w) => [w, `${w}${w.toUpperCase()}es`] as const,
  ),
  ['eia', 'eias'],
  ['ssh', 'sshs'],
  ['tia', 'tias'],
]);

/** A suffix rule: a word ending in `suffix` becomes `…replacement`, or stays (`replacement` undefined). */
interface SuffixRule {
  suffix: string;
  replacement?: string;
}

/** Whole words, checked before any suffix rule. */
const SINGULAR_TO_PLURAL = new Map(KNOWN_WORDS.map((w) => [w.singular, w.plural]));
const ALREADY_PLURAL = new Set(
  KNOWN_WORDS.filter((w) => !w.oneWay).flatMap((w) => (w.alternative ? [w.plural, w.alternative] : [w.plural])),
);

/** Known words as compound endings (later-listed first), then the general endings; each "already plural" check before its change. */
const SUFFIX_RULES: readonly SuffixRule[] = [
  ...[...KNOWN_WORDS]
    .reverse()
    .filter((w) => !w.exact)
    .map((w) => [w.plural, w.singular] as const),
  ...ENDINGS.map(([singular, plural]) => [plural, singular] as const),
].flatMap(([plural, singular]): SuffixRule[] => [{ suffix: plural }, { suffix: singular, replacement: plural }]);

/** flect's plural of one lower-case word (see the module comment); '' for ''. */
export function pluralizeWord(word: string): string {
  if (word === '') return '';
  const known = SINGULAR_TO_PLURAL.get(word);
  if (known !== undefined) return known;
  if (ALREADY_PLURAL.has(word)) return word;
  const acronym = ACRONYM_PLURALS.get(word);
  if (acronym !== undefined) return acronym;
  for (const rule of SUFFIX_RULES) {
    if (!word.endsWith(rule.suffix)) continue;
    return rule.replacement === undefined ? word : word.slice(0, word.length - rule.suffix.length) + rule.replacement;
  }
  return word.endsWith('s') ? word : `${word}s`;
}

/** clusterctl's required CRD name for a kind of a group: `<plural of the lower-cased kind>.<group>`. */
export function expectedCrdName(group: string, kind: string): string {
  return `${pluralizeWord(kind.toLowerCase())}.${group}`;
}
