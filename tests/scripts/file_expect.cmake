# Requires that FILE exists and its content matches the regex EXPECT.
if(NOT EXISTS ${FILE})
  message(FATAL_ERROR "missing ${FILE}")
endif()
file(READ ${FILE} content)
if(NOT content MATCHES "${EXPECT}")
  string(SUBSTRING "${content}" 0 600 head)
  message(FATAL_ERROR "${FILE} does not match '${EXPECT}'. It begins:\n${head}")
endif()
