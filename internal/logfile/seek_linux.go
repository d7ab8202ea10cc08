package logfile

// seekData is lseek's SEEK_DATA on Linux: the next offset that holds data,
// past a sparse file's hole.
const seekData = 3
