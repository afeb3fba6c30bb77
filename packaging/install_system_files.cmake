# Run by `cmake --install` and cpack: perflab-proxy's configuration and logrotate rule under
# /etc when the prefix is /usr, else PREFIX/etc (GNUInstallDirs' rule, applied at install time so
# that one build installs anywhere), and its systemd unit naming the programs where they went.
# Set by the install code before: perflab_packaging_dir, perflab_packaging_build_dir,
# perflab_bindir (CMAKE_INSTALL_BINDIR).
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(PERFLAB_SYSCONFDIR /etc)
else()
  set(PERFLAB_SYSCONFDIR "${CMAKE_INSTALL_PREFIX}/etc")
endif()
if(IS_ABSOLUTE "${perflab_bindir}")
  set(PERFLAB_BINDIR "${perflab_bindir}")
else()
  set(PERFLAB_BINDIR "${CMAKE_INSTALL_PREFIX}/${perflab_bindir}")
endif()

file(INSTALL DESTINATION "${PERFLAB_SYSCONFDIR}/perflab" TYPE FILE
  FILES "${perflab_packaging_dir}/perflab-proxy.yml")
file(INSTALL DESTINATION "${PERFLAB_SYSCONFDIR}/logrotate.d" TYPE FILE RENAME perflab-proxy
  FILES "${perflab_packaging_dir}/perflab-proxy.logrotate")
configure_file("${perflab_packaging_dir}/perflab-proxy.service.in"
  "${perflab_packaging_build_dir}/perflab-proxy.service" @ONLY)
file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system" TYPE FILE
  FILES "${perflab_packaging_build_dir}/perflab-proxy.service")
