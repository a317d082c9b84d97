; Zeus Desktop installer: optional start at sign-in, offered once at install time. It writes the same value
; (HKCU Run, "ZeusDesktop") as the app's "Start at login" setting, so either can turn it off. Included by CPack's NSIS template through
; CPACK_NSIS_EXTRA_INSTALL_COMMANDS / CPACK_NSIS_EXTRA_UNINSTALL_COMMANDS (see packaging/CMakeLists.txt).
; A silent install (/S) answers "No".
!macro ZeusAskAutostart
  MessageBox MB_YESNO|MB_ICONQUESTION "Start Zeus Desktop automatically when you sign in?" /SD IDNO IDNO zeus_no_autostart
    WriteRegStr HKCU "Software\Microsoft\Windows\CurrentVersion\Run" "ZeusDesktop" '"$INSTDIR\bin\zeus-desktop.exe"'
  zeus_no_autostart:
!macroend

!macro ZeusRemoveAutostart
  DeleteRegValue HKCU "Software\Microsoft\Windows\CurrentVersion\Run" "ZeusDesktop"
!macroend
