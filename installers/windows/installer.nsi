; GPU Setup Wizard: per-user Windows installer (no administrator rights, no UAC prompt).
;
; Built by installers/build.py, which first writes the uninstall list from the bundle:
;   python installers/windows/mkunlist.py dist/gpu-setup-wizard build/uninstall_list.nsh
;   makensis -INPUTCHARSET UTF8 -DVERSION=0.1.0 -DVERSION4=0.1.0.0 -DPAYLOAD=dist/gpu-setup-wizard
;            -DUNINSTALL_LIST=build/uninstall_list.nsh -DOUTFILE=dist/gpu-setup-wizard-0.1.0-setup.exe
;            installers/windows/installer.nsi
; Optional defines:
;   FAST                      store files uncompressed (CI tests: seconds instead of minutes)
;   SIGN_CERT, SIGN_KEY       PEM certificate and key: osslsigncode signs the uninstaller and the
;                             installer as they are written (nothing is signed without them)
;   SIGN_TIMESTAMP_URL        RFC 3161 timestamp server for the signatures
;   ICON                      .ico for the installer, uninstaller and Apps & features
;
; What it does, and why:
; - installs to %LOCALAPPDATA%\Programs\GPU Setup Wizard (Windows' per-user program folder);
;   registry writes go to HKCU only, which is enough for a Start-menu entry and Apps & features;
; - upgrades in place: the folder of the registered version is the default, and that version's
;   own uninstaller removes exactly its files after the user has confirmed (never in .onInit,
;   so cancelling leaves the old version working);
; - the uninstaller deletes exactly the files the bundle had (a list generated at build time),
;   never a recursive delete of a folder the user may have chosen (C:\, Documents, ...);
; - the user's data and PyTorch environments live outside the install folder and survive
;   upgrades and uninstalls; `uninstall.exe /S /PURGE`, or "yes" in the interactive uninstaller,
;   removes them: first the app itself, while its files are still there, removes every
;   environment this user's install records say the wizard made (`gpu-setup-wizard-cli storage
;   --clean --wizard-envs --yes`: the shared C:\GPU-Setup-Wizard\envs of a profile whose path is
;   not ASCII, folders the student typed), each under the app's deletion rule, so other users'
;   environments in the shared root stay; then the two folders below go whole.

Unicode true
Target amd64-unicode          ; PySide6 6 is x64-only; a 64-bit stub also runs under plain wine64
ManifestDPIAware true
RequestExecutionLevel user

!ifdef FAST
  SetCompress off
!else
  SetCompressor /SOLID lzma
  SetCompressorDictSize 64
!endif

!ifndef VERSION
  !error "define VERSION (e.g. -DVERSION=0.1.0)"
!endif
!ifndef VERSION4
  !error "define VERSION4, four numbers (e.g. -DVERSION4=0.1.0.0)"
!endif
!ifndef PAYLOAD
  !error "define PAYLOAD, the PyInstaller one-folder bundle"
!endif
!ifndef UNINSTALL_LIST
  !error "define UNINSTALL_LIST, written by mkunlist.py from the same PAYLOAD"
!endif
!ifndef OUTFILE
  !define OUTFILE "gpu-setup-wizard-${VERSION}-setup.exe"
!endif

!define APPID      "gpu-setup-wizard"
!define APPTITLE   "GPU Setup Wizard"
!define PUBLISHER  "GPU Setup Wizard contributors"
!define EXE        "gpu-setup-wizard.exe"
!define CLI_EXE    "gpu-setup-wizard-cli.exe"
!define UNINST_EXE "uninstall.exe"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APPID}"
!define APP_KEY    "Software\${APPTITLE}"
; platformdirs.user_data_dir("gpu-setup-wizard", appauthor=False): settings, cache, history
!define DATA_DIR   "$LOCALAPPDATA\${APPID}"
; wizard.core.system.default_env_root: <home>\GPU-Setup-Wizard\envs (the PyTorch environments)
!define ENVS_DIR   "$PROFILE\GPU-Setup-Wizard"

Name "${APPTITLE}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APPTITLE}"
InstallDirRegKey HKCU "${APP_KEY}" "InstallDir"
ShowInstDetails show
ShowUnInstDetails show

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "FileFunc.nsh"

;--------------------------------------------------------------------------------------------
; Signing: only when a certificate is given. %1 is the file makensis has just written.
!ifdef SIGN_CERT & SIGN_KEY
  !ifdef SIGN_TIMESTAMP_URL
    !define SIGN_TS '-ts "${SIGN_TIMESTAMP_URL}"'
  !else
    !define SIGN_TS ''
  !endif
  !ifdef NSIS_WIN32_MAKENSIS
    !define SIGN_MOVE 'move /Y "%1.signed" "%1"'
  !else
    !define SIGN_MOVE 'mv -f "%1.signed" "%1"'
  !endif
  !define SIGN_CMD 'osslsigncode sign -certs "${SIGN_CERT}" -key "${SIGN_KEY}" -n "${APPTITLE}" -h sha256 ${SIGN_TS} -in "%1" -out "%1.signed"'
  !uninstfinalize '${SIGN_CMD} && ${SIGN_MOVE}' = 0
  !finalize '${SIGN_CMD} && ${SIGN_MOVE}' = 0
!endif

;--------------------------------------------------------------------------------------------
; Pages (Korean and English; the language dialog preselects the Windows display language)
!define MUI_ABORTWARNING
!ifdef ICON
  !define MUI_ICON "${ICON}"
  !define MUI_UNICON "${ICON}"
!endif
!define MUI_LANGDLL_REGISTRY_ROOT "HKCU"
!define MUI_LANGDLL_REGISTRY_KEY "${APP_KEY}"
!define MUI_LANGDLL_REGISTRY_VALUENAME "InstallerLanguage"

!define MUI_WELCOMEPAGE_TEXT "$(WelcomeText)"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_RUN "$INSTDIR\${EXE}"
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "Korean"
!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_RESERVEFILE_LANGDLL

LangString WelcomeText ${LANG_KOREAN} "GPU 환경 설정 마법사를 설치합니다.$\r$\n$\r$\n관리자 권한이 필요 없습니다. 이 사용자 계정에만 설치됩니다.$\r$\n$\r$\n마법사가 만드는 PyTorch 환경과 설정은 설치 폴더 밖에 저장되므로 업데이트하거나 제거해도 남아 있습니다.$\r$\n$\r$\n계속하려면 [다음]을 누르세요."
LangString WelcomeText ${LANG_ENGLISH} "This installs the GPU Setup Wizard.$\r$\n$\r$\nNo administrator rights are needed: it is installed for this user account only.$\r$\n$\r$\nThe PyTorch environments and settings the wizard creates are kept outside the install folder, so updates and uninstalling leave them in place.$\r$\n$\r$\nClick Next to continue."
LangString PurgeQuestion ${LANG_KOREAN} "마법사가 만든 Python/PyTorch 환경과 설정도 삭제할까요?$\r$\n$\r$\n${ENVS_DIR}$\r$\n${DATA_DIR}$\r$\n마법사가 이 사용자에게 다른 곳에 만든 환경 (C:\GPU-Setup-Wizard\envs, 직접 고른 폴더; 다른 사용자의 환경은 남습니다)$\r$\n$\r$\n[아니요]를 누르면 그대로 남겨 두고 프로그램만 제거합니다."
LangString PurgeQuestion ${LANG_ENGLISH} "Also delete the Python/PyTorch environments and settings the wizard created?$\r$\n$\r$\n${ENVS_DIR}$\r$\n${DATA_DIR}$\r$\nthe environments the wizard made for you elsewhere (C:\GPU-Setup-Wizard\envs, folders you chose; other users' environments stay)$\r$\n$\r$\nChoose No to keep them and remove only the program."
LangString PurgeEnvs ${LANG_KOREAN} "마법사가 만든 환경을 지우는 중 (다른 사용자의 환경은 남습니다)..."
LangString PurgeEnvs ${LANG_ENGLISH} "Removing the environments the wizard made (other users' environments stay)..."
LangString PurgeEnvsDone ${LANG_KOREAN} "마법사가 만든 환경 지우기가 끝났습니다 (결과 $0)."
LangString PurgeEnvsDone ${LANG_ENGLISH} "Removing the wizard's environments finished (result $0)."
LangString CliLang ${LANG_KOREAN} "ko"
LangString CliLang ${LANG_ENGLISH} "en"
LangString PreviousRemoved ${LANG_KOREAN} "이전 버전을 제거했습니다 (종료 코드 $0)."
LangString PreviousRemoved ${LANG_ENGLISH} "Previous version removed (exit code $0)."

VIProductVersion "${VERSION4}"
VIFileVersion "${VERSION4}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductName" "${APPTITLE}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileDescription" "${APPTITLE} installer"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "LegalCopyright" "(c) ${PUBLISHER}, MIT License"
VIAddVersionKey /LANG=${LANG_KOREAN} "ProductName" "${APPTITLE}"
VIAddVersionKey /LANG=${LANG_KOREAN} "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=${LANG_KOREAN} "FileDescription" "GPU 환경 설정 마법사 설치 프로그램"
VIAddVersionKey /LANG=${LANG_KOREAN} "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_KOREAN} "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_KOREAN} "LegalCopyright" "(c) ${PUBLISHER}, MIT License"

Var OldDir  ; install folder of the version registered in Apps & features, if any
Var Purge   ; "1": the uninstaller deletes the user's environments and data too (/PURGE or "yes")

Function .onInit
  SetShellVarContext current
  !insertmacro MUI_LANGDLL_DISPLAY
  ReadRegStr $OldDir HKCU "${UNINST_KEY}" "InstallLocation"
  ${If} $OldDir != ""
    StrCpy $INSTDIR $OldDir
  ${EndIf}
FunctionEnd

Section "-Remove previous version"
  ; After the user confirmed. _?= runs the old uninstaller in place, so ExecWait really waits;
  ; /S without /PURGE keeps the user's data. The old uninstaller cannot delete itself that way.
  ${If} $OldDir != ""
  ${AndIf} ${FileExists} "$OldDir\${UNINST_EXE}"
    ExecWait '"$OldDir\${UNINST_EXE}" /S _?=$OldDir' $0
    Delete "$OldDir\${UNINST_EXE}"
    RMDir "$OldDir"
    DetailPrint "$(PreviousRemoved)"
  ${EndIf}
SectionEnd

Section "Install"
  SetOutPath "$INSTDIR"
  File /r "${PAYLOAD}\*"
  WriteUninstaller "$INSTDIR\${UNINST_EXE}"
  CreateShortcut "$SMPROGRAMS\${APPTITLE}.lnk" "$INSTDIR\${EXE}" "" "$INSTDIR\${EXE}" 0

  WriteRegStr HKCU "${APP_KEY}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${APPTITLE}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\${EXE},0"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\${UNINST_EXE}"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\${UNINST_EXE}" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD HKCU "${UNINST_KEY}" "EstimatedSize" "$0"
SectionEnd

Function un.onInit
  SetShellVarContext current
  !insertmacro MUI_UNGETLANGUAGE
FunctionEnd

Section "Uninstall"
  ; Asked first: the environments outside ENVS_DIR are removed by the app itself, which must
  ; still be here to do it.
  StrCpy $Purge ""
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/PURGE" $R1
  ${IfNot} ${Errors}
    StrCpy $Purge "1"
  ${ElseIfNot} ${Silent}
    MessageBox MB_YESNO|MB_ICONQUESTION|MB_DEFBUTTON2 "$(PurgeQuestion)" /SD IDNO IDNO keep
      StrCpy $Purge "1"
    keep:
  ${EndIf}
  ${If} $Purge == "1"
  ${AndIf} ${FileExists} "$INSTDIR\${CLI_EXE}"
    ; Every environment this user's install records say the wizard made, wherever it is (the
    ; shared C:\GPU-Setup-Wizard\envs cannot be deleted whole: other users' environments are
    ; there), each under the app's deletion rule. Hidden, waited for; whatever it answers (a
    ; refusal, an error, a crash), the uninstall goes on.
    DetailPrint "$(PurgeEnvs)"
    nsExec::ExecToLog '"$INSTDIR\${CLI_EXE}" storage --clean --wizard-envs --yes --lang $(CliLang)'
    Pop $0
    DetailPrint "$(PurgeEnvsDone)"
  ${EndIf}

  !include "${UNINSTALL_LIST}"
  Delete "$INSTDIR\${UNINST_EXE}"
  RMDir "$INSTDIR"  ; only if empty: files the user put there stay
  Delete "$SMPROGRAMS\${APPTITLE}.lnk"
  DeleteRegKey HKCU "${UNINST_KEY}"
  DeleteRegValue HKCU "${APP_KEY}" "InstallDir"
  DeleteRegValue HKCU "${APP_KEY}" "InstallerLanguage"
  DeleteRegKey /ifempty HKCU "${APP_KEY}"

  ${If} $Purge == "1"
    RMDir /r "${ENVS_DIR}"
    RMDir /r "${DATA_DIR}"
  ${EndIf}
SectionEnd
