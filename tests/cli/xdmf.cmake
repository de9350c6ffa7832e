# -output_format xdmf (framework/io/xdmf.c): every problem type's frames written collectively on 2 ranks
# as XDMF + HDF5, read back through HDF5 and compared with the serial run's .vtu/.vti
# (tests/scripts/check_xdmf.cmake): mesh (the FEM beam), grid (a 2D smoke plume), particles (MPM).
if(MPIEXEC_EXECUTABLE)
  foreach(t "mesh;beam.xmf;3;0;1e-8;0;run;-scene;beam;-beam_n;12;-beam_nw;3;-steps;3;-dt;0.01"
            "grid;smoke_plume.xmf;4;1e-6;1e-6;0;run;-scene;smoke_plume;-smoke_plume_n;16;-steps;4;-dt;0.02"
            "particles;jelly_blocks.xmf;1;0;1e-8;1e-12;run;-scene;jelly_blocks;-steps;1;-dt;1e-4")
    list(POP_FRONT t kind series steps rtol0 rtol atol)
    add_test(NAME cli.xdmf.${kind}_2ranks
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/xdmf_${kind}
                     -DXDMFCHECK=$<TARGET_FILE:xdmfcheck> -DSERIES=${series} -DSTEPS=${steps} -DRTOL0=${rtol0} -DRTOL=${rtol} -DATOL=${atol}
                     "-DARGS=${t};-snapshots;0;-strict_options" -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_xdmf.cmake)
    set_tests_properties(cli.xdmf.${kind}_2ranks PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV};OPENBLAS_NUM_THREADS=1")
  endforeach()
endif()
# A problem type without XDMF output (rigid) refuses it by name; an unknown format lists the valid ones.
pbsim_cli_test(NAME xdmf.unsupported FAIL EXPECT "has no XDMF output; use -output_format vtk"
               ARGS run -scene bounce -steps 1 -snapshots 0 -output_format xdmf -o ${PBSIM_TEST_OUT}/xdmf_rigid)
pbsim_cli_test(NAME xdmf.unknown_format FAIL EXPECT "output_format"
               ARGS run -scene oscillator -steps 1 -snapshots 0 -output_format vtm -o ${PBSIM_TEST_OUT}/xdmf_bad)
# -output_format auto (the default) writes XDMF from -output_xdmf_ranks ranks on (8 by default), where
# the scene has XDMF output, else VTK: with the threshold at 1 the beam writes .xmf + .h5 on one rank,
# and the rigid bounce, which has no XDMF output, still writes .vtu instead of failing.
pbsim_cli_files_test(NAME xdmf.auto_threshold DIR ${PBSIM_TEST_OUT}/xdmf_auto
  ARGS run -scene beam -beam_n 4 -steps 1 -snapshots 0 -output_xdmf_ranks 1 -strict_options -o ${PBSIM_TEST_OUT}/xdmf_auto
  GLOBS "beam.xmf" "frame_00001.h5")
pbsim_cli_files_test(NAME xdmf.auto_without_xdmf DIR ${PBSIM_TEST_OUT}/xdmf_auto_rigid
  ARGS run -scene bounce -steps 1 -snapshots 0 -output_xdmf_ranks 1 -strict_options -o ${PBSIM_TEST_OUT}/xdmf_auto_rigid
  GLOBS "frame_00001.vtu")
pbsim_cli_test(NAME xdmf.bad_threshold FAIL EXPECT "-output_xdmf_ranks must be >= 1"
               ARGS run -scene oscillator -steps 1 -output_xdmf_ranks 0 -o ${PBSIM_TEST_OUT}/xdmf_bad)
