"""A minimal protobuf wire decoder for .ncu-rep files, written from
../shared/docs/ncu-rep-format.md, independent of the C++ reader: the
fixture check compares what the tool imports with what this computes."""
import struct


def varint(buf, pos):
    shift = value = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7


def fields(buf):
    """Yields (field number, wire type, value) of one message."""
    pos = 0
    while pos < len(buf):
        key, pos = varint(buf, pos)
        num, wire = key >> 3, key & 7
        if wire == 0:
            val, pos = varint(buf, pos)
        elif wire == 1:
            val = buf[pos:pos + 8]
            pos += 8
        elif wire == 2:
            n, pos = varint(buf, pos)
            val = buf[pos:pos + n]
            pos += n
        elif wire == 5:
            val = buf[pos:pos + 4]
            pos += 4
        else:
            raise ValueError("wire type %d" % wire)
        yield num, wire, val


def first(buf, num, default=None):
    for n, _, v in fields(buf):
        if n == num:
            return v
    return default


def every(buf, num):
    return [v for n, _, v in fields(buf) if n == num]


def blocks(data):
    """Yields (header bytes, [entry bytes]) per block."""
    assert data[:4] == b"NVR\0"
    (n,) = struct.unpack_from("<I", data, 4)
    pos = 8 + n
    while pos < len(data):
        (h,) = struct.unpack_from("<I", data, pos)
        header = data[pos + 4:pos + 4 + h]
        pos += 4 + h
        size = first(header, 5, 0)
        end = pos + size
        entries = []
        while pos < end:
            (e,) = struct.unpack_from("<I", data, pos)
            entries.append(data[pos + 4:pos + 4 + e])
            pos += 4 + e
        yield header, entries


def results(data):
    """Yields each ProfileResult's bytes, with the string table so far."""
    table = []
    for header, entries in blocks(data):
        st = first(header, 4)
        if st:
            table += [s.decode("utf-8", "replace") for s in every(st, 1)]
        ns, nr = first(header, 1, 0), first(header, 2, 0)
        for entry in entries[ns:ns + nr]:
            yield entry, table


def metric_double(result, table, name):
    for m in every(result, 13):
        if table[first(m, 1)] == name:
            v = first(m, 2)
            if v is None:
                return None
            for n, w, x in fields(v):
                if n == 3:
                    return struct.unpack("<d", x)[0]
                if n == 5:
                    return float(x)
    return None
