/*
 * A stand-in for Windows' bcryptprimitives.dll, for running capn under Wine 8 only.
 *
 * Rust's std (1.78+) gets its random bytes (HashMap keys, tempfile names) from
 * ProcessPrng in bcryptprimitives.dll, which Wine 8.0 does not export: the exe then fails
 * to start. This DLL exports ProcessPrng on top of RtlGenRandom (advapi32's
 * SystemFunction036), which Wine has. It sits beside the exe under test and never ships.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
