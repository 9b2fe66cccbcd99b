import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Benchmark {
  /// This process's memory: the resident set size from `/proc/self/status` and the heap in
  /// use from glibc (Linux only).
  enum ProcessMemory {
    /// The current resident set size (`VmRSS`) in MiB; nil where `/proc` is unavailable.
    static var residentMiB: Double? { field("VmRSS") }

    /// The resident set size after handing free heap back (``returnFreeMemory()``): live
    /// memory, without pages the allocator keeps free (an arena a thread touched late, say).
    static var liveResidentMiB: Double? {
      _ = returnFreeMemory()
      return residentMiB
    }

    /// Bytes of heap in use (allocated and not freed, in every arena, plus `mmap`ed blocks),
    /// from glibc's `mallinfo2`; nil where it cannot be called.
    ///
    /// `malloc.h` is not part of the Glibc module, so the function is looked up by name. It
    /// returns a 10-word struct, which the x86-64 System V ABI returns through a hidden
    /// pointer passed as the first argument: the call passes that buffer explicitly. Other
    /// architectures return such structs differently, so there the figure is nil and callers
    /// fall back on ``liveResidentMiB``.
    static var heapInUseBytes: Int? {
      #if canImport(Glibc) && arch(x86_64)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallinfo2") else {
          return nil
        }
        typealias MallInfo2 = @convention(c) (UnsafeMutablePointer<Int>) -> UnsafeMutableRawPointer?
        // arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost
        var fields = [Int](repeating: 0, count: 10)
        fields.withUnsafeMutableBufferPointer { buffer in
          guard let base = buffer.baseAddress else { return }
          _ = unsafeBitCast(symbol, to: MallInfo2.self)(base)
        }
        return fields[7] + fields[4]
      #else
        return nil
      #endif
    }

    /// The peak resident set size (`VmHWM`, process-wide) in MiB; nil where unavailable.
    static var peakMiB: Double? { field("VmHWM") }

    /// Returns free heap memory to the system (`malloc_trim(0)`, glibc only), so the resident
    /// set size reflects live memory rather than what earlier work freed. Returns whether it
    /// could.
    static func returnFreeMemory() -> Bool {
      #if canImport(Glibc)
        // `malloc.h` is not part of the Glibc module: look the function up (RTLD_DEFAULT is 0).
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else {
          return false
        }
        typealias MallocTrim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        return true
      #else
        return false
      #endif
    }

    /// Resets `VmHWM` to the current resident set size (`/proc/self/clear_refs`, Linux 4.0+).
    /// Returns whether the kernel accepted it.
    static func resetPeak() -> Bool {
      guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else {
        return false
      }
      defer { try? handle.close() }
      do {
        try handle.write(contentsOf: Data("5".utf8))
        return true
      } catch {
        return false
      }
    }

    private static func field(_ name: String) -> Double? {
      guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)
      else { return nil }
      for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
        let parts = line.split { $0 == " " || $0 == "\t" }
        guard parts.count >= 2, let kibibytes = Double(parts[1]) else { return nil }
        return kibibytes / 1024
      }
      return nil
    }
  }
}
