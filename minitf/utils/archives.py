"""Extraction of tar and zip archives that may come from a hostile source.

Every member is checked before a single byte is written: absolute names, '..' components,
names that pass through a symbolic link, links whose target resolves outside the folder
(following the other links of the archive, so a chain such as `d/up -> ..` then
`d/up2 -> up/..` is caught), hard links to anything but an earlier regular file, device files,
FIFOs and zip entries marked as symbolic links are all refused with ValueError. The sum of the
declared sizes must stay under a limit, and the bytes actually written are counted against the
same limit, so a lying header or a compression bomb stops at the limit. Members are written by
this module, not by `tarfile.extractall`, so the checks do not depend on the Python version
having tarfile's `data` filter.

Everything is written to a temporary folder next to the destination, and moved into place only
once the whole archive has been extracted, so a refused or broken archive leaves nothing behind.
"""
import lzma
import os
import shutil
import stat
import tarfile
import tempfile
import unicodedata
import zipfile
import zlib

__all__ = ["extract_archive", "extract_size_limit", "MAX_EXTRACT_BYTES_ENV", "DEFAULT_MAX_EXTRACT_BYTES"]

MAX_EXTRACT_BYTES_ENV = "MINITF_MAX_EXTRACT_BYTES"
DEFAULT_MAX_EXTRACT_BYTES = 8 * 1024 ** 3  # 8 GiB: larger than any Keras dataset, far below a bomb
_CHUNK = 1 << 16
_MAX_LINK_HOPS = 40  # what Linux allows before ELOOP
_READ_ERRORS = (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, lzma.LZMAError)


def extract_size_limit(limit=None):
    """The extraction size limit in bytes: `limit`, else $MINITF_MAX_EXTRACT_BYTES, else 8 GiB."""
    source = "max_extract_bytes"
    if limit is None:
        limit = os.environ.get(MAX_EXTRACT_BYTES_ENV)
        source = f"${MAX_EXTRACT_BYTES_ENV}"
        if limit is None or limit.strip() == "":
            return DEFAULT_MAX_EXTRACT_BYTES
    try:
        value = int(limit)
    except (TypeError, ValueError):
        value = -1
    if value <= 0:
        raise ValueError(f"{source} must be a positive number of bytes, got {limit!r}.")
    return value


def _limit_error(archive, limit, what):
    return ValueError(
        f"Refusing to extract {archive!r}: {what} exceeds the extraction limit of {limit} bytes "
        f"({limit / 1024 ** 3:.3g} GiB), which protects the disk from archive bombs. If you trust "
        f"this archive, raise the limit with `max_extract_bytes=` (get_file / extract_archive) or "
        f"the environment variable {MAX_EXTRACT_BYTES_ENV}.")


class _Entry:
    """One member to write: kind is 'dir', 'file', 'symlink' or 'hardlink'."""

    def __init__(self, kind, parts, member, size=0, link=None, mode=0o644):
        self.kind, self.parts, self.member = kind, parts, member
        self.size, self.link, self.mode = size, link, mode


def _split(name, archive, what="member"):
    """The components of a member name, refusing names that could leave the target folder."""
    if os.path.isabs(name) or name.startswith(("/", "\\")) or os.path.splitdrive(name)[0]:
        raise ValueError(f"Refusing to extract {archive!r}: {what} {name!r} is an absolute path.")
    # '..' is refused whichever separator it hides behind, so the check holds on every OS.
    if ".." in name.replace("\\", "/").split("/"):
        raise ValueError(f"Refusing to extract {archive!r}: {what} {name!r} has a '..' component "
                         f"that leaves the target directory.")
    if "\0" in name:
        raise ValueError(f"Refusing to extract {archive!r}: {what} {name!r} contains a NUL byte.")
    for sep in {os.sep, os.altsep} - {None, "/"}:
        name = name.replace(sep, "/")  # Windows: backslashes separate folders too
    return tuple(p for p in name.split("/") if p not in ("", "."))


def _key(parts):
    """How a case-insensitive, normalizing file system (macOS, Windows) could see a path.

    Names are compared this way everywhere, so `Up` and `up` count as the same entry: on such a
    system a link check done per exact spelling could be bypassed through another spelling.
    """
    return tuple(unicodedata.normalize("NFC", part).casefold() for part in parts)


class _Plan:
    """The members in archive order, checked against each other as a file system would see them."""

    def __init__(self, archive, limit):
        self.archive, self.limit = archive, limit
        self.entries, self.kinds, self.links = [], {}, {}
        self.declared = 0

    def _refuse(self, parts, why):
        raise ValueError(f"Refusing to extract {self.archive!r}: member {'/'.join(parts)!r} {why}.")

    def add(self, entry):
        parts = entry.parts
        if not parts:
            if entry.kind == "dir":
                return  # './' : the target folder itself
            raise ValueError(f"Refusing to extract {self.archive!r}: a {entry.kind} member has an "
                             f"empty name.")
        for i in range(1, len(parts)):
            kind = self.kinds.get(_key(parts[:i]))
            if kind == "symlink":
                self._refuse(parts, f"would be written through the symbolic link "
                                    f"{'/'.join(parts[:i])!r}")
            if kind in ("file", "hardlink"):
                self._refuse(parts, f"needs {'/'.join(parts[:i])!r} to be a directory, but the "
                                    f"archive also has it as a file")
            self.kinds[_key(parts[:i])] = "dir"
        existing = self.kinds.get(_key(parts))
        compatible = {"dir": ("dir",), "file": ("file",)}.get(entry.kind, ())
        if existing is not None and existing not in compatible:
            self._refuse(parts, f"is a {entry.kind} but the archive already has a {existing} there")
        if entry.kind == "symlink":
            self._check_symlink(parts, entry.link)
            self.links[_key(parts)] = (parts, entry.link)
        elif entry.kind == "hardlink":
            target = _split(entry.link, self.archive, "hard link target")
            if self.kinds.get(_key(target)) != "file":
                self._refuse(parts, f"is a hard link to {entry.link!r}, which is not a regular file "
                                    f"earlier in the archive")
            entry.link = target
        elif entry.kind == "file":
            self.declared += entry.size
            if self.declared > self.limit:
                raise _limit_error(self.archive, self.limit,
                                   f"the declared size of its files (at least {self.declared} bytes)")
        self.kinds[_key(parts)] = entry.kind
        self.entries.append(entry)

    def _check_symlink(self, parts, link):
        if not link or os.path.isabs(link) or link.startswith(("/", "\\")) or os.path.splitdrive(link)[0]:
            self._refuse(parts, f"is a symbolic link to the absolute path {link!r}")
        if "\\" in link or "\0" in link:
            self._refuse(parts, f"is a symbolic link to {link!r}, whose meaning differs between "
                                f"operating systems")
        if self._resolve(parts[:-1] + tuple(link.split("/"))) is None:
            self._refuse(parts, f"is a symbolic link to {link!r}, which resolves outside the "
                                f"target directory")

    def _resolve(self, parts):
        """Where `parts` leads once the archive's links are followed; None when it leaves the root."""
        stack, todo, hops = [], list(parts), 0
        while todo:
            part = todo.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if not stack:
                    return None
                stack.pop()
                continue
            stack.append(part)
            found = self.links.get(_key(stack))
            if found is not None:
                link = found[1]
                hops += 1
                if hops > _MAX_LINK_HOPS:
                    return None  # a loop: refused rather than left for the OS to trip over
                stack.pop()
                todo = link.split("/") + todo
        return tuple(stack)

    def finish(self):
        """Re-check every link against the final set: a later link can change an earlier one's target."""
        for parts, link in self.links.values():
            if self._resolve(parts[:-1] + tuple(link.split("/"))) is None:
                self._refuse(parts, f"is a symbolic link to {link!r}, which resolves outside the "
                                    f"target directory once the archive's other links exist")


def _tar_entries(tar, plan):
    for member in tar:  # lazily: a bomb is refused at its first oversized header
        parts = _split(member.name, plan.archive)
        if member.isreg():
            plan.add(_Entry("file", parts, member, member.size,
                            mode=0o755 if member.mode & 0o111 else 0o644))
        elif member.isdir():
            plan.add(_Entry("dir", parts, member))
        elif member.issym():
            plan.add(_Entry("symlink", parts, member, link=member.linkname))
        elif member.islnk():
            plan.add(_Entry("hardlink", parts, member, link=member.linkname))
        else:
            plan._refuse(parts, "is a device file, FIFO or other special file")


def _zip_entries(zf, plan):
    for info in zf.infolist():
        parts = _split(info.filename, plan.archive)
        mode = info.external_attr >> 16
        # the unix file type rides in the high bits; checked whatever the creating system claims
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
            if stat.S_ISLNK(mode):
                plan._refuse(parts, "is a symbolic link, which minitf does not extract from zip files")
            plan._refuse(parts, "is a device file, FIFO or other special file")
        if info.is_dir() or stat.S_ISDIR(mode):
            plan.add(_Entry("dir", parts, info))
        else:
            plan.add(_Entry("file", parts, info, info.file_size,
                            mode=0o755 if mode & 0o111 else 0o644))


class _Writer:
    """Writes planned members under `root`, counting the bytes against the limit."""

    def __init__(self, root, plan):
        self.root, self.plan, self.written = root, plan, 0

    def path(self, parts):
        return os.path.join(self.root, *parts)

    def write(self, entry, stream):
        target = self.path(entry.parts)
        if entry.kind == "dir":
            os.makedirs(target, exist_ok=True)
            return
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if entry.kind == "symlink":
            os.symlink(entry.link, target)
        elif entry.kind == "hardlink":
            try:
                os.link(self.path(entry.link), target)
            except (OSError, NotImplementedError):  # no hard links here: a copy is just as good
                with open(self.path(entry.link), "rb") as source:
                    self._copy(source, target, entry)
        else:
            if os.path.lexists(target):
                os.unlink(target)  # a later copy of the same file replaces the earlier one
            self._copy(stream, target, entry)

    def _copy(self, stream, target, entry):
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        with os.fdopen(os.open(target, flags, entry.mode), "wb") as out:
            while True:
                chunk = stream.read(_CHUNK)
                if not chunk:
                    break
                self.written += len(chunk)
                if self.written > self.plan.limit:
                    raise _limit_error(self.plan.archive, self.plan.limit,
                                       f"the data actually extracted (more than {self.plan.limit} bytes)")
                out.write(chunk)


def _extract_tar(file_path, root, limit):
    with tarfile.open(file_path) as tar:
        plan = _Plan(file_path, limit)
        _tar_entries(tar, plan)
        plan.finish()
        writer = _Writer(root, plan)
        for entry in plan.entries:
            stream = tar.extractfile(entry.member) if entry.kind == "file" else None
            writer.write(entry, stream)
            if entry.kind == "file":
                os.utime(writer.path(entry.parts), (entry.member.mtime, entry.member.mtime))


def _extract_zip(file_path, root, limit):
    with zipfile.ZipFile(file_path) as zf:
        plan = _Plan(file_path, limit)
        _zip_entries(zf, plan)
        plan.finish()
        writer = _Writer(root, plan)
        for entry in plan.entries:
            if entry.kind != "file":
                writer.write(entry, None)
                continue
            try:
                with zf.open(entry.member) as stream:
                    writer.write(entry, stream)
            except RuntimeError as e:  # zipfile's error for encrypted members
                raise ValueError(f"Cannot extract {file_path!r}: member {entry.member.filename!r}: "
                                 f"{e}") from e


def _formats(archive_format):
    if archive_format is None:
        return []
    if archive_format == "auto":
        return ["tar", "zip"]
    formats = [archive_format] if isinstance(archive_format, str) else list(archive_format)
    for fmt in formats:
        if fmt not in ("tar", "zip"):
            raise NotImplementedError(f"archive_format {fmt!r} is not supported; use 'tar', 'zip', "
                                      f"'auto' or None.")
    return formats


def _extract_into(file_path, root, archive_format, limit):
    """Extract into the empty folder `root`; False when no listed format matches the file."""
    for fmt in _formats(archive_format):
        is_match, extract = ((tarfile.is_tarfile, _extract_tar) if fmt == "tar"
                             else (zipfile.is_zipfile, _extract_zip))
        if is_match(file_path):
            try:
                extract(file_path, root, limit)
            except _READ_ERRORS as e:
                raise ValueError(f"Cannot extract {file_path!r}: the archive is damaged or "
                                 f"truncated ({type(e).__name__}: {e}).") from e
            return True
    return False


def _merge_conflicts(source, dest, found):
    """Paths of `source` that cannot be moved onto `dest` without replacing a folder or a link."""
    for name in os.listdir(source):
        src, dst = os.path.join(source, name), os.path.join(dest, name)
        if not os.path.lexists(dst):
            continue
        src_dir = os.path.isdir(src) and not os.path.islink(src)
        dst_dir = os.path.isdir(dst) and not os.path.islink(dst)
        if src_dir and dst_dir:
            _merge_conflicts(src, dst, found)
        elif src_dir or dst_dir:
            found.append(dst)
    return found


def _merge(source, dest):
    for name in os.listdir(source):
        src, dst = os.path.join(source, name), os.path.join(dest, name)
        if os.path.isdir(dst) and not os.path.islink(dst) and not os.path.islink(src) and os.path.isdir(src):
            _merge(src, dst)
        else:
            os.replace(src, dst)


def extract_archive(file_path, path=".", archive_format="auto", max_extract_bytes=None, replace=False):
    """Extract a tar (.tar, .tar.gz, .tar.bz2, .tar.xz) or zip archive into the folder `path`.

    `archive_format` is 'auto' (tar, then zip), 'tar', 'zip', a list of those, or None. Returns
    True when the archive was extracted, False when it matched none of the formats.

    Every member is checked before anything is written, and ValueError is raised (leaving
    `path` untouched) for an absolute name, a '..' component, a name written through a symbolic
    link, a symbolic link whose target resolves outside `path` (following the archive's other
    links), a hard link to anything but an earlier regular file, a device file or FIFO, or a zip
    entry marked as a symbolic link. Extraction stops with ValueError once the files exceed
    `max_extract_bytes` (default: $MINITF_MAX_EXTRACT_BYTES, else 8 GiB), whether by their
    declared sizes or by the bytes actually decompressed.

    The archive is extracted into a temporary folder next to `path` and moved into place at the
    end. A missing `path` is created; an existing one receives the new files (replacing files of
    the same name, never a folder by a file or the reverse), or is replaced as a whole when
    `replace=True`.
    """
    file_path, path = os.fspath(file_path), os.path.abspath(os.fspath(path))
    limit = extract_size_limit(max_extract_bytes)
    exists = os.path.isdir(path)
    if os.path.lexists(path) and not exists:
        raise ValueError(f"Cannot extract {file_path!r} into {path!r}: it exists and is not a folder.")
    parent = path if exists and not replace else os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".extract-", dir=parent)
    try:
        if not _extract_into(file_path, staging, archive_format, limit):
            return False
        os.chmod(staging, 0o755)
        if not exists:
            os.rename(staging, path)
        elif replace:
            old = tempfile.mkdtemp(prefix=".replaced-", dir=parent)
            os.rename(path, os.path.join(old, "old"))
            os.rename(staging, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            conflicts = _merge_conflicts(staging, path, [])
            if conflicts:
                raise ValueError(f"Cannot extract {file_path!r} into {path!r}: {conflicts[:3]} already "
                                 f"exist with another type (a folder where the archive has a file, "
                                 f"or a link). Extract into an empty folder instead.")
            _merge(staging, path)
        return True
    finally:
        shutil.rmtree(staging, ignore_errors=True)

