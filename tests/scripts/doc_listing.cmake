# A listing in the docs is the file it shows, character for character: DOC holds
#   <!-- begin NAME -->, a fenced code block with the text of FILE, <!-- end NAME -->.
# Usage: cmake -DDOC=docs/x.md -DFILE=path/to/file -DNAME=path/to/file -P doc_listing.cmake
file(READ ${DOC} doc)
file(READ ${FILE} text)
set(begin "<!-- begin ${NAME} -->\n```c\n")
set(end "```\n<!-- end ${NAME} -->")
string(FIND "${doc}" "${begin}" b)
string(FIND "${doc}" "${end}" e)
if(b LESS 0 OR e LESS 0)
  message(FATAL_ERROR "${DOC} has no listing of ${NAME} (markers '<!-- begin ${NAME} -->' and '<!-- end ${NAME} -->')")
endif()
string(LENGTH "${begin}" blen)
math(EXPR start "${b} + ${blen}")
math(EXPR len "${e} - ${start}")
string(SUBSTRING "${doc}" ${start} ${len} listing)
if(NOT listing STREQUAL text)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/listing_from_doc.txt "${listing}")
  message(FATAL_ERROR "The listing of ${NAME} in ${DOC} differs from the file: update the docs "
                      "(the listing is written to ${CMAKE_CURRENT_BINARY_DIR}/listing_from_doc.txt; diff it with ${FILE})")
endif()
