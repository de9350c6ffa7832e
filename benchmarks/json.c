/* Streaming JSON writer with string escaping and two-space indentation (see json.h). */
#include "benchmarks/json.h"

/* Comma, newline and indentation before an item, then its key if any. */
static PetscBool Inline(const BenchJSON *j, int depth)
{
  return (PetscBool)(j->inline_from && depth > j->inline_from);
}

static PetscErrorCode Item(BenchJSON *j, const char *key)
{
  PetscFunctionBeginUser;
  if (Inline(j, j->depth))
    PetscCall(PetscFPrintf(j->comm, j->fp, "%s", j->has_items[j->depth] ? ", " : ""));
  else
    PetscCall(PetscFPrintf(j->comm, j->fp, "%s\n%*s", j->has_items[j->depth] ? "," : "", 2 * j->depth, ""));
  j->has_items[j->depth] = PETSC_TRUE;
  if (key) PetscCall(PetscFPrintf(j->comm, j->fp, "\"%s\": ", key));
  PetscFunctionReturn(0);
}

static PetscErrorCode Open(BenchJSON *j, const char *key, char bracket)
{
  PetscFunctionBeginUser;
  PetscCheck(j->depth + 1 < BENCH_JSON_MAX_DEPTH, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "JSON nesting deeper than %d",
             BENCH_JSON_MAX_DEPTH);
  PetscCall(Item(j, key));
  PetscCall(PetscFPrintf(j->comm, j->fp, "%c", bracket));
  j->has_items[++j->depth] = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode Close(BenchJSON *j, char bracket)
{
  PetscFunctionBeginUser;
  PetscCheck(j->depth > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "JSON: closing more than was opened");
  j->depth--;
  if (j->has_items[j->depth + 1] && !Inline(j, j->depth + 1)) PetscCall(PetscFPrintf(j->comm, j->fp, "\n%*s", 2 * j->depth, ""));
  PetscCall(PetscFPrintf(j->comm, j->fp, "%c", bracket));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchJSONBegin(BenchJSON *j, MPI_Comm comm, FILE *fp)
{
  PetscFunctionBeginUser;
  j->comm = comm;
  j->fp = fp;
  j->depth = 0;
  j->inline_from = 0;
  j->has_items[0] = PETSC_FALSE;
  PetscCall(PetscFPrintf(comm, fp, "{"));
  j->depth = 1;
  j->has_items[1] = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchJSONEnd(BenchJSON *j)
{
  PetscFunctionBeginUser;
  PetscCheck(j->depth == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "JSON: %d unclosed objects or arrays", j->depth - 1);
  PetscCall(Close(j, '}'));
  PetscCall(PetscFPrintf(j->comm, j->fp, "\n"));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchJSONInlineBegin(BenchJSON *j)
{
  j->inline_from = j->depth;
  return 0;
}
PetscErrorCode BenchJSONInlineEnd(BenchJSON *j)
{
  j->inline_from = 0;
  return 0;
}

PetscErrorCode BenchJSONObjectBegin(BenchJSON *j, const char *key)
{
  return Open(j, key, '{');
}
PetscErrorCode BenchJSONObjectEnd(BenchJSON *j)
{
  return Close(j, '}');
}
PetscErrorCode BenchJSONArrayBegin(BenchJSON *j, const char *key)
{
  return Open(j, key, '[');
}
PetscErrorCode BenchJSONArrayEnd(BenchJSON *j)
{
  return Close(j, ']');
}

PetscErrorCode BenchJSONString(BenchJSON *j, const char *key, const char *value)
{
  PetscFunctionBeginUser;
  PetscCall(Item(j, key));
  if (!value) {
    PetscCall(PetscFPrintf(j->comm, j->fp, "null"));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscFPrintf(j->comm, j->fp, "\""));
  for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
    if (*c == '"' || *c == '\\')
      PetscCall(PetscFPrintf(j->comm, j->fp, "\\%c", *c));
    else if (*c == '\n')
      PetscCall(PetscFPrintf(j->comm, j->fp, "\\n"));
    else if (*c == '\t')
      PetscCall(PetscFPrintf(j->comm, j->fp, "\\t"));
    else if (*c < 0x20)
      PetscCall(PetscFPrintf(j->comm, j->fp, "\\u%04x", (unsigned)*c));
    else
      PetscCall(PetscFPrintf(j->comm, j->fp, "%c", *c));
  }
  PetscCall(PetscFPrintf(j->comm, j->fp, "\""));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchJSONReal(BenchJSON *j, const char *key, PetscReal value)
{
  PetscFunctionBeginUser;
  PetscCall(Item(j, key));
  if (PetscIsInfOrNanReal(value))
    PetscCall(PetscFPrintf(j->comm, j->fp, "null"));
  else
    PetscCall(PetscFPrintf(j->comm, j->fp, "%.10g", (double)value));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchJSONInt(BenchJSON *j, const char *key, PetscInt value)
{
  PetscFunctionBeginUser;
  PetscCall(Item(j, key));
  PetscCall(PetscFPrintf(j->comm, j->fp, "%" PetscInt_FMT, value));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchJSONBool(BenchJSON *j, const char *key, PetscBool value)
{
  PetscFunctionBeginUser;
  PetscCall(Item(j, key));
  PetscCall(PetscFPrintf(j->comm, j->fp, "%s", value ? "true" : "false"));
  PetscFunctionReturn(0);
}
