/* VTK ImageData (.vti) writer for cell fields on a uniform box grid (ParaView reads it directly). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "framework/io/vti.h"

static const char *ByteOrder(void)
{
  const uint16_t probe = 1;
  return *(const uint8_t *)&probe ? "LittleEndian" : "BigEndian";
}

PetscErrorCode SimVTIWrite(const char *path, PetscInt dim, const PetscInt n[3], PetscReal h, PetscInt nfields,
                           const SimVTIField fields[])
{
  char tmp[PETSC_MAX_PATH_LEN];
  FILE *fp;
  PetscInt ncell = n[0] * n[1] * (dim == 3 ? n[2] : 1);
  size_t offset = 0;
  int failed, err;

  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SimVTIWrite: dimension %" PetscInt_FMT, dim);
  PetscCheck(snprintf(tmp, sizeof(tmp), "%s.tmp", path) < (int)sizeof(tmp), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "Output path '%s' is too long", path);
  fp = fopen(tmp, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open '%s' for writing: %s", path, strerror(errno));
  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n",
          ByteOrder());
  fprintf(fp,
          "  <ImageData WholeExtent=\"0 %" PetscInt_FMT " 0 %" PetscInt_FMT " 0 %" PetscInt_FMT
          "\" Origin=\"0 0 0\" Spacing=\"%.17g %.17g %.17g\">\n",
          n[0], n[1], dim == 3 ? n[2] : 0, (double)h, (double)h, (double)h);
  fprintf(fp, "    <Piece Extent=\"0 %" PetscInt_FMT " 0 %" PetscInt_FMT " 0 %" PetscInt_FMT "\">\n      <CellData>\n", n[0],
          n[1], dim == 3 ? n[2] : 0);
  for (PetscInt f = 0; f < nfields; f++) {
    fprintf(fp, "        <DataArray type=\"Float64\" Name=\"%s\"", fields[f].name);
    if (fields[f].ncomp > 1) fprintf(fp, " NumberOfComponents=\"%" PetscInt_FMT "\"", fields[f].ncomp);
    fprintf(fp, " format=\"appended\" offset=\"%zu\"/>\n", offset);
    offset += sizeof(uint64_t) + sizeof(double) * (size_t)(ncell * fields[f].ncomp);
  }
  fprintf(fp, "      </CellData>\n    </Piece>\n  </ImageData>\n  <AppendedData encoding=\"raw\">\n_");
  for (PetscInt f = 0; f < nfields; f++) {
    const uint64_t nbytes = sizeof(double) * (uint64_t)(ncell * fields[f].ncomp);
    fwrite(&nbytes, sizeof(nbytes), 1, fp);
    for (PetscInt k = 0; k < ncell * fields[f].ncomp; k++) {
      const double v = (double)fields[f].data[k];
      fwrite(&v, sizeof(v), 1, fp);
    }
  }
  fprintf(fp, "\n  </AppendedData>\n</VTKFile>\n");
  failed = ferror(fp);
  err = failed ? errno : 0;
  if (fclose(fp) && !failed) failed = 1, err = errno;
  if (failed) remove(tmp);
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write '%s': %s", path, strerror(err));
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename '%s' to '%s': %s", tmp, path,
             strerror(errno));
  PetscFunctionReturn(0);
}
