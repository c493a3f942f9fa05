#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/display.h>
#include <libavutil/error.h>

/// The display matrix of a stream (its rotation and flips), or NULL. Where it lives moved between
/// FFmpeg releases (AVStream side data until 6.0, codec parameters' coded side data from 6.1), so
/// Swift asks here instead of following either layout itself.
static inline const int32_t *lightbox_stream_display_matrix(const AVStream *stream) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 30, 100)
    const AVPacketSideData *side_data = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                                stream->codecpar->nb_coded_side_data,
                                                                AV_PKT_DATA_DISPLAYMATRIX);
    if (side_data == NULL || side_data->size < 9 * sizeof(int32_t)) return NULL;
    return (const int32_t *)side_data->data;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (data == NULL || size < 9 * sizeof(int32_t)) return NULL;
    return (const int32_t *)data;
#endif
}
