/* YAML configs: libyaml's document loader, flattened into options as PETSc's YAML reader does, with
 * every malformed input an error naming the file and line. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <yaml.h>
#include "framework/config.h"

#define SIM_CONFIG_MAX_NAME 256     /* characters of an option name */
#define SIM_CONFIG_MAX_VALUE 65536 /* characters of one value (a list included) */

/* Keys that PETSc reads as flags with no value (`log_view:` alone is allowed for them). */
static const char *const flag_keys[] = {"help", "log_view", "options_left", "malloc_dump", "memory_view"};

typedef struct {
  MPI_Comm comm;
  const char *path;
  yaml_document_t *doc;
  SimConfig *cfg;
  PetscInt cap;
} Flattener;

static int Line(const yaml_node_t *n)
{
  return (int)n->start_mark.line + 1;
}

static const char *KindName(const yaml_node_t *n)
{
  return n->type == YAML_SCALAR_NODE ? "a value" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a mapping";
}

static const char *Str(const yaml_node_t *n)
{
  return (const char *)n->data.scalar.value;
}

/* A plain scalar that YAML reads as null: empty, ~ or null. */
static PetscBool IsNull(const yaml_node_t *n)
{
  const char *s = Str(n);
  if (!s[0]) return PETSC_TRUE;
  if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return PETSC_FALSE;
  return (PetscBool)(!strcmp(s, "~") || !strcasecmp(s, "null"));
}

static PetscBool IsFlagKey(const char *name)
{
  for (size_t i = 0; i < sizeof(flag_keys) / sizeof(flag_keys[0]); i++)
    if (!strcasecmp(name, flag_keys[i])) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* A key is one segment of an option name: letters, digits, '_' and '-'. */
static PetscErrorCode CheckKey(Flattener *F, const yaml_node_t *key, const char *prefix)
{
  const char *s;

  PetscFunctionBeginUser;
  PetscCheck(key->type == YAML_SCALAR_NODE, F->comm, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%d: a key must be a plain name, not %s", F->path, Line(key), KindName(key));
  s = Str(key);
  PetscCheck(s[0], F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: empty key", F->path, Line(key));
  for (const char *p = s; *p; p++)
    PetscCheck(isalnum((unsigned char)*p) || *p == '_' || *p == '-', F->comm, PETSC_ERR_FILE_UNEXPECTED,
               "%s:%d: key '%.64s' is not an option name (letters, digits and '_' only)", F->path, Line(key), s);
  PetscCheck(prefix[0] || isalpha((unsigned char)s[0]), F->comm, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%d: key '%.64s' is not an option name (it must start with a letter)", F->path, Line(key), s);
  PetscFunctionReturn(0);
}

/* Appends -<prefix><key> = value (value NULL: a flag). */
static PetscErrorCode AddEntry(Flattener *F, const char *prefix, const char *key, const char *value, int line, PetscBool merged)
{
  SimConfig *cfg = F->cfg;
  SimConfigEntry *e;
  size_t n = strlen(prefix) + strlen(key) + 2;

  PetscFunctionBeginUser;
  PetscCheck(cfg->n < SIM_CONFIG_MAX_OPTIONS, F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: more than %d options in one config", F->path,
             line, SIM_CONFIG_MAX_OPTIONS);
  PetscCheck(n <= SIM_CONFIG_MAX_NAME, F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: option name '%s%.64s...' is longer than %d characters",
             F->path, line, prefix, key, SIM_CONFIG_MAX_NAME);
  if (cfg->n == F->cap) {
    F->cap = F->cap ? 2 * F->cap : 32;
    PetscCall(PetscRealloc((size_t)F->cap * sizeof(*cfg->entry), &cfg->entry));
  }
  e = &cfg->entry[cfg->n++];
  PetscCall(PetscMemzero(e, sizeof(*e)));
  PetscCall(PetscMalloc1(n, &e->name));
  PetscCall(PetscSNPrintf(e->name, n, "-%s%s", prefix, key));
  if (value) PetscCall(PetscStrallocpy(value, &e->value));
  e->line = line;
  e->merged = merged;
  PetscFunctionReturn(0);
}

static PetscErrorCode Layer(Flattener *F, const yaml_node_t *node, const char *prefix, int depth, PetscBool merged);

/* A scalar value: one line, and present (except for PETSc's flags). */
static PetscErrorCode ScalarValue(Flattener *F, const yaml_node_t *key, const yaml_node_t *val, const char *prefix, PetscBool merged)
{
  const char *s = Str(val);

  PetscFunctionBeginUser;
  if (IsNull(val)) {
    PetscCheck(!prefix[0] && IsFlagKey(Str(key)), F->comm, PETSC_ERR_FILE_UNEXPECTED,
               "%s:%d: key '%s%s' has no value (write '%s: VALUE'; for a flag, 'true' or 'false')", F->path, Line(key), prefix,
               Str(key), Str(key));
    PetscCall(AddEntry(F, prefix, Str(key), NULL, Line(key), merged));
    PetscFunctionReturn(0);
  }
  PetscCheck(!strpbrk(s, "\n\r"), F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: the value of key '%s%s' spans several lines", F->path,
             Line(val), prefix, Str(key));
  PetscCheck(strlen(s) <= SIM_CONFIG_MAX_VALUE, F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: the value of key '%s%s' is longer than %d characters",
             F->path, Line(val), prefix, Str(key), SIM_CONFIG_MAX_VALUE);
  PetscCall(AddEntry(F, prefix, Str(key), s, Line(key), merged));
  PetscFunctionReturn(0);
}

/* The items of a list joined by commas into list[0..SIM_CONFIG_MAX_VALUE]; an item that is a one-key
 * mapping `- name: {...}` adds `name` and its mapping under the prefix `<key>_` (PETSc's convention). */
static PetscErrorCode JoinItems(Flattener *F, const yaml_node_t *key, const yaml_node_t *val, const char *prefix, int depth, PetscBool merged,
                                char *list, size_t *len)
{
  char sub[SIM_CONFIG_MAX_NAME + 2];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(sub, sizeof(sub), "%s%s_", prefix, Str(key)));
  for (yaml_node_item_t *it = val->data.sequence.items.start; it < val->data.sequence.items.top; it++) {
    const yaml_node_t *item = yaml_document_get_node(F->doc, *it);
    const char *s = NULL;
    size_t n;

    PetscCheck(item, F->comm, PETSC_ERR_LIB, "%s:%d: corrupt YAML document", F->path, Line(val));
    if (item->type == YAML_SCALAR_NODE) {
      s = Str(item);
      PetscCheck(!strpbrk(s, "\n\r"), F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: an item of key '%s%s' spans several lines", F->path,
                 Line(item), prefix, Str(key));
    } else if (item->type == YAML_MAPPING_NODE) {
      const yaml_node_pair_t *p = item->data.mapping.pairs.start;
      PetscCheck(item->data.mapping.pairs.top - p <= 1, F->comm, PETSC_ERR_FILE_UNEXPECTED,
                 "%s:%d: an item of the list '%s%s' is a mapping with several keys; write one key per item (- name: value)", F->path,
                 Line(item), prefix, Str(key));
      if (p < item->data.mapping.pairs.top) {
        const yaml_node_t *k = yaml_document_get_node(F->doc, p->key);
        PetscCheck(k, F->comm, PETSC_ERR_LIB, "%s:%d: corrupt YAML document", F->path, Line(item));
        PetscCall(CheckKey(F, k, sub));
        PetscCheck(strcmp(Str(k), "<<"), F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: a merge key '<<' is not allowed in a list item",
                   F->path, Line(k));
        if (!strncmp(Str(k), "$$", 2)) continue;
        s = Str(k);
        PetscCall(Layer(F, item, sub, depth + 1, merged));
      }
    } else SETERRQ(F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: an item of the list '%s%s' is itself a list", F->path, Line(item), prefix, Str(key));
    if (!s || !s[0]) continue;
    n = strlen(s);
    PetscCheck(*len + n + 1 <= SIM_CONFIG_MAX_VALUE, F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: the list '%s%s' is longer than %d characters",
               F->path, Line(val), prefix, Str(key), SIM_CONFIG_MAX_VALUE);
    if (*len) list[(*len)++] = ',';
    memcpy(list + *len, s, n + 1);
    *len += n;
  }
  PetscFunctionReturn(0);
}

/* A list: one option whose value is its items joined by commas (JoinItems). */
static PetscErrorCode SequenceValue(Flattener *F, const yaml_node_t *key, const yaml_node_t *val, const char *prefix, int depth,
                                    PetscBool merged)
{
  char *list;
  size_t len = 0;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(SIM_CONFIG_MAX_VALUE + 1, &list));
  list[0] = 0;
  ierr = JoinItems(F, key, val, prefix, depth, merged, list, &len);
  if (!ierr && !len)
    ierr = PetscError(F->comm, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_UNEXPECTED, PETSC_ERROR_INITIAL,
                      "%s:%d: key '%s%s' is an empty list", F->path, Line(key), prefix, Str(key));
  if (!ierr) ierr = AddEntry(F, prefix, Str(key), list, Line(key), merged);
  PetscCall(PetscFree(list));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* One mapping: every pair becomes options under `prefix`. */
static PetscErrorCode Layer(Flattener *F, const yaml_node_t *node, const char *prefix, int depth, PetscBool merged)
{
  PetscFunctionBeginUser;
  PetscCheck(depth <= SIM_CONFIG_MAX_DEPTH, F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: nested deeper than %d levels", F->path, Line(node),
             SIM_CONFIG_MAX_DEPTH);
  PetscCheck(node->type == YAML_MAPPING_NODE, F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: expected a mapping (key: value), got %s",
             F->path, Line(node), KindName(node));
  for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
    const yaml_node_t *key = yaml_document_get_node(F->doc, p->key), *val = yaml_document_get_node(F->doc, p->value);
    char sub[SIM_CONFIG_MAX_NAME + 2];

    PetscCheck(key && val, F->comm, PETSC_ERR_LIB, "%s:%d: corrupt YAML document", F->path, Line(node));
    PetscCheck(key->type == YAML_SCALAR_NODE, F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: a key must be a plain name, not %s", F->path,
               Line(key), KindName(key));
    if (!strcmp(Str(key), "<<")) { /* merge: the mapping(s) at this level, overridable by explicit keys */
      if (val->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = val->data.sequence.items.start; it < val->data.sequence.items.top; it++) {
          const yaml_node_t *item = yaml_document_get_node(F->doc, *it);
          PetscCheck(item, F->comm, PETSC_ERR_LIB, "%s:%d: corrupt YAML document", F->path, Line(val));
          PetscCall(Layer(F, item, prefix, depth + 1, PETSC_TRUE));
        }
      } else PetscCall(Layer(F, val, prefix, depth + 1, PETSC_TRUE));
      continue;
    }
    if (!strncmp(Str(key), "$$", 2)) { /* PETSc's dummy keys (anchors); its !include is not supported */
      PetscCheck(!val->tag || !strstr((const char *)val->tag, "include"), F->comm, PETSC_ERR_SUP,
                 "%s:%d: '!include' is not supported in pbsim configs", F->path, Line(key));
      continue;
    }
    PetscCall(CheckKey(F, key, prefix));
    switch (val->type) {
    case YAML_SCALAR_NODE:
      PetscCall(ScalarValue(F, key, val, prefix, merged));
      break;
    case YAML_SEQUENCE_NODE:
      PetscCheck(depth + 1 <= SIM_CONFIG_MAX_DEPTH, F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: nested deeper than %d levels", F->path,
                 Line(val), SIM_CONFIG_MAX_DEPTH);
      PetscCall(SequenceValue(F, key, val, prefix, depth + 1, merged));
      break;
    case YAML_MAPPING_NODE:
      PetscCheck(strlen(prefix) + strlen(Str(key)) + 1 < SIM_CONFIG_MAX_NAME, F->comm, PETSC_ERR_FILE_UNEXPECTED,
                 "%s:%d: option names under key '%.64s' are longer than %d characters", F->path, Line(key), Str(key), SIM_CONFIG_MAX_NAME);
      PetscCall(PetscSNPrintf(sub, sizeof(sub), "%s%s_", prefix, Str(key)));
      PetscCall(Layer(F, val, sub, depth + 1, merged));
      break;
    default:
      SETERRQ(F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: unsupported YAML node", F->path, Line(val));
    }
  }
  PetscFunctionReturn(0);
}

static int CompareEntries(const void *a, const void *b)
{
  const SimConfigEntry *x = *(const SimConfigEntry *const *)a, *y = *(const SimConfigEntry *const *)b;
  int c = strcasecmp(x->name, y->name);
  return c ? c : (x < y ? -1 : x > y);
}

/* An option set twice: an error naming both lines, unless it came through a merge key `<<` (an
 * explicit key overrides a merged one; of merged ones, the later wins, as PETSc would set them). */
static PetscErrorCode Deduplicate(Flattener *F)
{
  SimConfig *cfg = F->cfg;
  SimConfigEntry **order;
  PetscBool *drop;
  PetscInt m = 0;
  char msg[512] = "";

  PetscFunctionBeginUser;
  if (cfg->n < 2) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(cfg->n, &order, cfg->n, &drop));
  for (PetscInt i = 0; i < cfg->n; i++) order[i] = &cfg->entry[i], drop[i] = PETSC_FALSE;
  qsort(order, (size_t)cfg->n, sizeof(*order), CompareEntries); /* equal names stay in file order */
  for (PetscInt s = 0, r; s < cfg->n && !msg[0]; s = r) {
    PetscInt keep = -1;
    for (r = s + 1; r < cfg->n && !strcasecmp(order[r]->name, order[s]->name); r++) {}
    for (PetscInt i = s; i < r && !msg[0]; i++) {
      if (order[i]->merged) continue;
      if (keep >= 0 && !order[keep]->merged)
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: option %s is set twice, on line %d and on line %d", F->path, order[i]->name,
                                order[keep]->line, order[i]->line));
      keep = i;
    }
    if (keep < 0) keep = r - 1;
    for (PetscInt i = s; i < r; i++) drop[order[i] - cfg->entry] = (PetscBool)(i != keep);
  }
  for (PetscInt i = 0; i < cfg->n && !msg[0]; i++) {
    if (drop[i]) {
      PetscCall(PetscFree(cfg->entry[i].name));
      PetscCall(PetscFree(cfg->entry[i].value));
    } else cfg->entry[m++] = cfg->entry[i];
  }
  if (!msg[0]) cfg->n = m;
  PetscCall(PetscFree2(order, drop));
  PetscCheck(!msg[0], F->comm, PETSC_ERR_FILE_UNEXPECTED, "%s", msg);
  PetscFunctionReturn(0);
}

/* 1-based line of byte `offset` in text. */
static int LineOfOffset(const char *text, size_t len, size_t offset)
{
  int line = 1;
  for (size_t i = 0; i < offset && i < len; i++)
    if (text[i] == '\n') line++;
  return line;
}

/* libyaml's error as "path:line:col: problem (context)". */
static PetscErrorCode YAMLError(MPI_Comm comm, const char *path, const char *text, size_t len, const yaml_parser_t *p)
{
  PetscFunctionBeginUser;
  if (p->error == YAML_MEMORY_ERROR) SETERRQ(comm, PETSC_ERR_MEM, "%s: out of memory while parsing the YAML", path);
  if (p->error == YAML_READER_ERROR)
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: not a text file: %s (byte %zu)", path, LineOfOffset(text, len, p->problem_offset),
            p->problem ? p->problem : "unreadable", p->problem_offset);
  SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d:%d: malformed YAML: %s%s%s", path, (int)p->problem_mark.line + 1,
          (int)p->problem_mark.column + 1, p->problem ? p->problem : "syntax error", p->context ? " " : "", p->context ? p->context : "");
}

PetscErrorCode SimConfigParse(MPI_Comm comm, const char *path, const char *text, size_t len, SimConfig *cfg)
{
  yaml_parser_t parser;
  yaml_document_t doc;
  Flattener F = {comm, path, &doc, cfg, 0};
  const char *nul;
  PetscErrorCode ierr = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(cfg, sizeof(*cfg)));
  PetscCall(PetscStrncpy(cfg->path, path, sizeof(cfg->path)));
  nul = memchr(text, 0, len);
  PetscCheck(!nul, comm, PETSC_ERR_FILE_UNEXPECTED, "%s:%d: contains a NUL byte: not a text file", path, LineOfOffset(text, len, (size_t)(nul - text)));
  PetscCheck(yaml_parser_initialize(&parser), comm, PETSC_ERR_LIB, "YAML parser initialization error");
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  for (;;) {
    yaml_node_t *root;

    if (!yaml_parser_load(&parser, &doc)) {
      ierr = YAMLError(comm, path, text, len, &parser);
      break;
    }
    root = yaml_document_get_root_node(&doc);
    if (!root) { /* the end of the stream */
      yaml_document_delete(&doc);
      break;
    }
    if (!(root->type == YAML_SCALAR_NODE && IsNull(root))) { /* an empty document sets nothing */
      if (root->type != YAML_MAPPING_NODE)
        ierr = PetscError(comm, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_UNEXPECTED, PETSC_ERROR_INITIAL,
                          "%s:%d: the top level must be a mapping of options (key: value lines), not %s", path, Line(root), KindName(root));
      else ierr = Layer(&F, root, "", 1, PETSC_FALSE);
    }
    yaml_document_delete(&doc);
    if (ierr) break;
  }
  yaml_parser_delete(&parser);
  if (!ierr) ierr = Deduplicate(&F);
  if (!ierr && !cfg->n)
    ierr = PetscError(comm, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_UNEXPECTED, PETSC_ERROR_INITIAL,
                      "%s: the config sets no option (an empty file, or only comments)", path);
  if (ierr) PetscCall(SimConfigFree(cfg));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SimConfigRead(MPI_Comm comm, const char *path, SimConfig *cfg)
{
  struct stat st;
  FILE *fp;
  char *text;
  size_t got;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(cfg, sizeof(*cfg)));
  PetscCheck(!stat(path, &st), comm, PETSC_ERR_FILE_OPEN, "Cannot open config file '%s': %s", path, strerror(errno));
  PetscCheck(!S_ISDIR(st.st_mode), comm, PETSC_ERR_FILE_OPEN, "Config file '%s' is a directory", path);
  PetscCheck(S_ISREG(st.st_mode), comm, PETSC_ERR_FILE_OPEN, "Config file '%s' is not a regular file", path);
  PetscCheck(st.st_size <= SIM_CONFIG_MAX_BYTES, comm, PETSC_ERR_FILE_UNEXPECTED,
             "Config file '%s' has %lld bytes; a config is at most %d (is it the right file?)", path, (long long)st.st_size,
             SIM_CONFIG_MAX_BYTES);
  fp = fopen(path, "rb");
  PetscCheck(fp, comm, PETSC_ERR_FILE_OPEN, "Cannot open config file '%s': %s", path, strerror(errno));
  PetscCall(PetscMalloc1((size_t)st.st_size + 1, &text));
  got = fread(text, 1, (size_t)st.st_size + 1, fp);
  ierr = ferror(fp) ? PETSC_ERR_FILE_READ : 0;
  (void)fclose(fp);
  if (ierr) PetscCall(PetscFree(text));
  PetscCheck(!ierr, comm, PETSC_ERR_FILE_READ, "Error reading config file '%s'", path);
  ierr = SimConfigParse(comm, path, text, PetscMin(got, (size_t)SIM_CONFIG_MAX_BYTES), cfg);
  PetscCall(PetscFree(text));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SimConfigInsert(const SimConfig *cfg, PetscOptions options, int nskip, const char *const *skip)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < cfg->n; i++) {
    PetscBool given = PETSC_FALSE;
    for (int k = 0; k < nskip && !given; k++) given = (PetscBool)!strcasecmp(skip[k], cfg->entry[i].name);
    if (!given) PetscCall(PetscOptionsSetValue(options, cfg->entry[i].name, cfg->entry[i].value));
  }
  PetscFunctionReturn(0);
}

const SimConfigEntry *SimConfigFind(const SimConfig *cfg, const char *name)
{
  if (!cfg || !name) return NULL;
  for (PetscInt i = 0; i < cfg->n; i++)
    if (!strcasecmp(cfg->entry[i].name, name)) return &cfg->entry[i];
  return NULL;
}

PetscErrorCode SimConfigFree(SimConfig *cfg)
{
  PetscFunctionBeginUser;
  if (!cfg) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < cfg->n; i++) {
    PetscCall(PetscFree(cfg->entry[i].name));
    PetscCall(PetscFree(cfg->entry[i].value));
  }
  PetscCall(PetscFree(cfg->entry));
  PetscCall(PetscMemzero(cfg, sizeof(*cfg)));
  PetscFunctionReturn(0);
}
