# Chakra execution traces (model/workload/chakra-trace-reader.cc) are
# protobuf messages of the schema model/workload/chakra/et_def.proto, read
# with C++ classes that protoc generates from it at build time, into the
# build directory; gzip-compressed traces are inflated with zlib.
# Debian: protobuf-compiler libprotobuf-dev zlib1g-dev.
#
# Including this file defines, for the directory that includes it:
#   CS_CHAKRA_PROTO_SOURCES      the generated et_def.pb.cc: compile it into
#                                the library that holds the reader
#   CS_CHAKRA_PROTO_INCLUDE_DIR  where et_def.pb.h is: the reader and its test
#                                include it
#   CS_CHAKRA_LIBRARIES          what to link: libprotobuf and zlib
# and cs_generate_chakra_proto(<sources var> <include dir var>), which
# generates another copy for a target of another directory (fuzz/): a
# custom command's output belongs to the directory that defines it.

find_package(Protobuf REQUIRED)
find_package(ZLIB REQUIRED)

get_filename_component(CS_CHAKRA_PROTO
                       "${CMAKE_CURRENT_LIST_DIR}/../model/workload/chakra/et_def.proto" ABSOLUTE)

function(cs_generate_chakra_proto sources_var include_dir_var)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/chakra-proto")
  get_filename_component(proto_dir "${CS_CHAKRA_PROTO}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(
    OUTPUT "${dir}/et_def.pb.cc" "${dir}/et_def.pb.h"
    COMMAND ${Protobuf_PROTOC_EXECUTABLE} --cpp_out=${dir} -I${proto_dir} ${CS_CHAKRA_PROTO}
    DEPENDS "${CS_CHAKRA_PROTO}"
    COMMENT "Generating C++ classes of the Chakra schema (et_def.proto)"
    VERBATIM
  )
  # Generated code: the module's warning flags are for its own sources.
  set_source_files_properties("${dir}/et_def.pb.cc" PROPERTIES COMPILE_OPTIONS "-w")
  set(${sources_var} "${dir}/et_def.pb.cc" PARENT_SCOPE)
  set(${include_dir_var} "${dir}" PARENT_SCOPE)
endfunction()

cs_generate_chakra_proto(CS_CHAKRA_PROTO_SOURCES CS_CHAKRA_PROTO_INCLUDE_DIR)
set(CS_CHAKRA_LIBRARIES protobuf::libprotobuf ZLIB::ZLIB)
