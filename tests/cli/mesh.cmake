# End-to-end tests of mesh input through the "file" scene: short runs on each format, and bad
# files or options that must fail with a message naming the file (and line) or the option.

set(MESH_OUT ${PBSIM_TEST_OUT}/mesh)

# Good runs, with -options_left so a misspelled option fails.
pbsim_cli_test(NAME mesh.run_msh ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/cube.msh -steps 3
               -o ${MESH_OUT}/msh -options_left EXPECT "done: 3 steps")
pbsim_cli_test(NAME mesh.run_tetgen ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/cube.node -file_pin_top_fraction 0.1
               -steps 3 -o ${MESH_OUT}/tetgen -options_left EXPECT "done: 3 steps")
pbsim_cli_test(NAME mesh.run_obj ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/square.obj -file_pin 2,3 -steps 3
               -o ${MESH_OUT}/obj -options_left EXPECT "done: 3 steps")
pbsim_cli_test(NAME mesh.help ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/square.obj -help
               EXPECT "-file_mesh.*-file_k_bend.*-file_pin_top_fraction")

# Bad input.
pbsim_cli_test(NAME mesh.missing_file ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/missing.obj -steps 1
               -o ${MESH_OUT}/bad FAIL EXPECT "Cannot open mesh file '[^']*missing\\.obj': No such file or directory")
pbsim_cli_test(NAME mesh.bad_obj_index ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/bad_index.obj -steps 1
               -o ${MESH_OUT}/bad FAIL EXPECT "bad_index\\.obj:5: face index 7 out of range \\(file has 3 vertices so far\\)")
pbsim_cli_test(NAME mesh.bad_obj_vertex ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/bad_vertex.obj -steps 1
               -o ${MESH_OUT}/bad FAIL EXPECT "bad_vertex\\.obj:3: expected 3 coordinates after 'v'")
pbsim_cli_test(NAME mesh.bad_msh ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/bad_body.msh -steps 1
               -o ${MESH_OUT}/bad FAIL EXPECT "bad_body\\.msh:14: file ends where a node tag of an element is expected")
pbsim_cli_test(NAME mesh.bad_tetgen ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/bad_tet.node -steps 1
               -o ${MESH_OUT}/bad FAIL EXPECT "bad_tet\\.ele:4: point number 9 out of range")
pbsim_cli_test(NAME mesh.unknown_extension ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/square.stl -steps 1
               -o ${MESH_OUT}/bad FAIL EXPECT "unknown extension '\\.stl': supported are \\.obj")
pbsim_cli_test(NAME mesh.no_mesh_option ARGS run -scene file -steps 1 -o ${MESH_OUT}/bad FAIL EXPECT "-file_mesh PATH")
pbsim_cli_test(NAME mesh.pin_out_of_range ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/cube.msh -file_pin 8 -steps 1
               -o ${MESH_OUT}/bad FAIL EXPECT "-file_pin: vertex 8 is out of range.*vertices .0, 8.")
pbsim_cli_test(NAME mesh.degenerate ARGS run -scene file -file_mesh ${PBSIM_TEST_DATA}/degenerate.obj -steps 1
               -o ${MESH_OUT}/bad FAIL EXPECT "Triangle 1 of '[^']*degenerate\\.obj'.*is degenerate")
