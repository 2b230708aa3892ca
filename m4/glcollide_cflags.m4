# SPDX-License-Identifier: MIT
# GLCOLLIDE_CHECK_CFLAGS(VARIABLE, FLAGS)
# Appends to VARIABLE each flag of FLAGS that the C compiler accepts.
AC_DEFUN([GLCOLLIDE_CHECK_CFLAGS], [
  for glcollide_flag in $2; do
    AC_MSG_CHECKING([whether $CC accepts $glcollide_flag])
    glcollide_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -Werror $glcollide_flag"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
      [$1="$$1 $glcollide_flag"; AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])])
    CFLAGS=$glcollide_save_CFLAGS
  done
])
